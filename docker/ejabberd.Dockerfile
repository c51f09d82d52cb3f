# ejabberd from Debian's own package, configured by the repository's ejabberd.yml (the
# server MAW's tests run): no image registry needed beyond the base. Build from the
# repository root (docker/compose.yaml does):
#
#   docker build -f docker/ejabberd.Dockerfile --build-arg BASE=maw-base:bookworm -t maw-ejabberd .
#
# BASE: any Debian bookworm image (the slim Python image by default, which is one).
ARG BASE=python:3.11-slim
FROM ${BASE}
RUN apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
       ejabberd openssl > /dev/null \
    && rm -rf /var/lib/apt/lists/*
# its own self-signed certificate for STARTTLS (agents do not verify it)
RUN openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=localhost" \
      -keyout /tmp/k -out /tmp/c 2>/dev/null \
    && cat /tmp/k /tmp/c > /etc/ejabberd/maw.pem && rm /tmp/k /tmp/c \
    && chown ejabberd /etc/ejabberd/maw.pem && chmod 600 /etc/ejabberd/maw.pem
COPY ejabberd.yml /maw/ejabberd.yml
COPY docker/ejabberd-entrypoint.sh docker/ejabberd-health.sh /maw/
EXPOSE 5222
HEALTHCHECK --interval=3s --timeout=5s --retries=40 CMD sh /maw/ejabberd-health.sh
ENTRYPOINT ["/bin/sh", "/maw/ejabberd-entrypoint.sh"]
