"""MAW's Protocol 3.6 (``maw/policies/protocol36.py``) held to the AIWolf platform's own
library: AIWolfCommon's ``org.aiwolf.client.lib`` compiled here with ``javac``.

    .venv/bin/python benchmarks/protocol36.py --sources DIR [--sentences 3000] [--record]

``DIR``: a checkout of ``aiwolf/AIWolfCommon`` at its 0.6.x branch (its ``src/`` and
``lib/jsonic-*.jar``). Two checks, both ways:

1. **built by Java, read by MAW**: ``--sentences`` sentences of every kind, nested up to
   three deep, built by the ``ContentBuilder`` classes (``aiwolf_java/Protocol36.java``,
   seeded): MAW parses each and prints it back; the texts must be the same.
2. **built by MAW, read by Java**: as many sentences built by MAW's builders, and as many
   broken ones (a word dropped, a bracket lost, a role misspelt, a case changed): Java's
   ``Content.validate`` and ``new Content(s).getText()`` against MAW's ``parse``: the same
   verdict, and the same text for the valid ones. (Where the Java library throws an
   exception of its own, a BECAUSE of one sentence, MAW's one-line error counts as the
   same verdict.)

``--record`` writes the fixtures the tests read without Java (``tests/data/protocol36-*``).
Figures in ``benchmarks/results/protocol36.json``.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import save  # benchmarks/record.py

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from maw.policies import protocol36 as p  # noqa: E402

HERE = Path(__file__).resolve().parent / "aiwolf_java"


def compile_java(sources: Path) -> tuple[Path, str]:
    jars = sorted(sources.rglob("jsonic-*.jar"))
    if not jars or not (sources / "src" / "org" / "aiwolf" / "client" / "lib").is_dir():
        raise SystemExit(f"{sources}: not an AIWolfCommon 0.6.x checkout (src/org/aiwolf/"
                         "client/lib and lib/jsonic-*.jar)")
    build = Path(tempfile.mkdtemp(prefix="maw-protocol36-"))
    files = [str(f) for f in sorted((sources / "src").rglob("*.java"))]
    listing = build / "sources.txt"
    listing.write_text("\n".join(files + [str(HERE / "Protocol36.java")]))
    cp = f"{build}:{jars[0]}"
    subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "-cp", str(jars[0]), "-d",
                    str(build), f"@{listing}"], check=True, capture_output=True)
    return build, cp


def java(cp: str, *args: str, stdin: str = "") -> list[str]:
    out = subprocess.run(["java", "-cp", cp, "Protocol36", *args], input=stdin, text=True,
                         capture_output=True, check=True)
    return out.stdout.splitlines()


def built(rng: random.Random, depth: int) -> p.Content:
    """A random sentence of MAW's builders (the same kinds and shapes as the Java ones)."""
    def agent(any_: bool = True) -> p.Agent:
        i = rng.randrange(17 if any_ else 16)
        return p.ANY if i == 16 else p.Agent(i + 1)

    s = None if rng.randrange(3) == 0 else agent()
    t = agent()
    k = rng.randrange(23 if depth > 0 else 15)
    simple = ["ESTIMATE", "COMINGOUT", "DIVINATION", "DIVINED", "IDENTIFIED", "GUARD",
              "GUARDED", "VOTE", "VOTED", "ATTACK", "ATTACKED"]
    if k < 11:
        name = simple[k]
        return p.topic(name, t, s, role=rng.choice(p.ROLES) if name in (
            "ESTIMATE", "COMINGOUT") else None, result=rng.choice(p.SPECIES) if name in (
            "DIVINED", "IDENTIFIED") else None)
    if k in (11, 12):
        return p.agree(rng.choice(p.TALK_TYPES), rng.randrange(15), rng.randrange(100), s,
                       disagree=k == 12)
    if k in (13, 14):
        return p.OVER if k == 13 else p.SKIP
    op = ["REQUEST", "INQUIRE", "BECAUSE", "DAY", "NOT", "AND", "OR", "XOR"][k - 15]
    n = {"BECAUSE": 2, "XOR": 2, "AND": 1 + rng.randrange(3), "OR": 1 + rng.randrange(3)}.get(op, 1)
    inner = [built(rng, depth - 1) for _ in range(n)]
    return p.operator(op, *inner, subject=s, target=t, day=rng.randrange(15))


def broken(rng: random.Random, text: str) -> str:
    """``text`` damaged in one of the ways an agent's talk goes wrong."""
    words = text.split(" ")
    how = rng.randrange(5)
    if how == 0 and len(words) > 1:
        del words[rng.randrange(len(words))]
        return " ".join(words)
    if how == 1 and "(" in text:
        i = rng.choice([i for i, c in enumerate(text) if c in "()"])
        return text[:i] + text[i + 1:]
    if how == 2:
        return text.replace("SEER", "SEEER").replace("HUMAN", "HUMANE").replace(
            "VOTE", "VOTES") if any(w in text for w in ("SEER", "HUMAN", "VOTE")) else text + " X"
    if how == 3:
        return text.lower()
    return text.replace("Agent[", "Agent(").replace("]", ")") if "Agent[" in text else "Bob " + text


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sources", required=True, type=Path)
    ap.add_argument("--sentences", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    _, cp = compile_java(args.sources)

    # 1. built by Java, read by MAW
    t0 = time.monotonic()
    from_java = java(cp, "build", str(args.seed), str(args.sentences))
    same = sum(p.parse(t).text == t for t in from_java)
    maw_seconds = time.monotonic() - t0
    kinds = sorted({p.parse(t).kind for t in from_java})
    print(f"built by Java, read by MAW: {same} of {len(from_java)} the same text "
          f"({len(kinds)} kinds: {' '.join(kinds)})")

    # 2. built by MAW (and broken), read by Java
    rng = random.Random(args.seed)
    mine = [built(rng, i % 4).text for i in range(args.sentences)]
    bad = [broken(rng, t) for t in mine]
    theirs = java(cp, "parse", stdin="\n".join(mine + bad) + "\n")
    agree = 0
    disagreements: list[str] = []
    crashed = sum(v.startswith("CRASH") for v in theirs)
    for text, verdict in zip(mine + bad, theirs, strict=True):
        ours = p.parse(text).text if p.valid(text) else "INVALID"
        if ours == verdict or (ours == "INVALID" and verdict.startswith("CRASH")):
            agree += 1
        else:
            disagreements.append(f"{text!r}: Java {verdict!r}, MAW {ours!r}")
    invalid = sum(v == "INVALID" for v in theirs)
    print(f"built by MAW (and {len(bad)} broken), read by Java: {agree} of {len(theirs)} "
          f"the same verdict and text ({invalid} invalid to Java; {crashed} on which the "
          "Java library itself failed, and MAW says what is wrong)")
    for line in disagreements[:20]:
        print("  ", line)
    t0 = time.monotonic()
    for t in from_java:
        p.parse(t)
    per = (time.monotonic() - t0) / len(from_java) * 1e6
    print(f"MAW parses a sentence in {per:.0f} µs on average")
    if args.record:
        data = REPO / "tests" / "data"
        (data / "protocol36-java-built.txt").write_text("\n".join(from_java[:600]) + "\n")
        pairs = [f"{t}\t{v}" for t, v in zip(mine[:300] + bad[:300], theirs[:300] +
                                              theirs[len(mine):len(mine) + 300], strict=True)]
        (data / "protocol36-java-read.tsv").write_text("\n".join(pairs) + "\n")
        print("recorded tests/data/protocol36-java-built.txt and protocol36-java-read.tsv")
    save("protocol36", [{"java_built": len(from_java), "maw_same_text": same,
                         "maw_built_and_broken": len(theirs), "same_verdict": agree,
                         "java_invalid": invalid, "java_crashed": crashed,
                         "kinds": len(kinds),
                         "parse_microseconds": round(per, 1),
                         "seconds": round(maw_seconds, 2)}])


if __name__ == "__main__":
    main()
