"""The embedded server's certificate: made once per user, whole, however many servers
start at once (pyjabber's own, written key first beside its package, was read half-made
by servers starting together, and every server of that install failed after)."""

from __future__ import annotations

import os
import ssl
import subprocess
import sys
from pathlib import Path


def test_servers_starting_at_once_share_one_whole_certificate(tmp_path):
    code = "from maw.hosting.xmpp import certificates; print(certificates())"
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [err for _, err in outs]
    folders = {out.strip() for out, _ in outs}
    assert len(folders) == 1
    folder = Path(folders.pop())
    assert folder.parent == tmp_path / "maw"
    # the key is the certificate's: TLS takes the pair
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(folder / "localhost_cert.pem", folder / "localhost_key.pem")
    assert not list((tmp_path / "maw").glob("certs-*"))  # no half-made folder left
