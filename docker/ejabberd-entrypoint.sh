#!/bin/sh
# The ejabberd service of docker/compose.yaml: Debian's ejabberd run with the project's
# root ejabberd.yml (copied to /maw/ejabberd.yml), changed only where a container must
# differ from a single machine, as scripts/ejabberd.sh changes only the port and
# certificate:
#   - listen on every interface of the container, not loopback (the players are other
#     containers; compose publishes the port on the host's loopback only);
#   - let clients on the private networks docker uses register, besides loopback;
#   - use the image's own self-signed certificate (STARTTLS; agents do not verify it).
# MAW_EJABBERD_NODE names the Erlang node (default ejabberd@<this container's name>) and
# MAW_EJABBERD_JOIN, if set, is a node of a cluster to join once this one is up.
set -eu
src=${MAW_EJABBERD_YML:-/maw/ejabberd.yml}
out=${MAW_EJABBERD_OUT:-/etc/ejabberd/ejabberd.yml}
cert=${MAW_EJABBERD_CERT:-/etc/ejabberd/maw.pem}
sed -e 's|ip: "127.0.0.1"|ip: "::"|' \
    -e "s|/etc/ejabberd/ejabberd.pem|$cert|" "$src" |
  awk '{ print } /- ::1\/128/ { print "      - 10.0.0.0/8"; print "      - 172.16.0.0/12";
                                print "      - 192.168.0.0/16" }' >"$out"
[ "${MAW_EJABBERD_DRY_RUN:-}" = 1 ] && exit 0
chown ejabberd "$out"
# (systemd makes its run directory on a Debian host; a container has none)
mkdir -p /run/ejabberd && chown ejabberd /run/ejabberd
# a cluster's node: its Erlang name (for every ejabberdctl, the health check's too) and
# the cookie the cluster's nodes share
if [ -n "${MAW_EJABBERD_NODE:-}" ]; then
  sed -i '/^ERLANG_NODE=/d' /etc/ejabberd/ejabberdctl.cfg
  echo "ERLANG_NODE=$MAW_EJABBERD_NODE" >> /etc/ejabberd/ejabberdctl.cfg
fi
if [ -n "${MAW_EJABBERD_COOKIE:-}" ]; then
  cookie=/var/lib/ejabberd/.erlang.cookie
  printf '%s' "$MAW_EJABBERD_COOKIE" > "$cookie"
  chown ejabberd "$cookie" && chmod 400 "$cookie"
fi
if [ -n "${MAW_EJABBERD_JOIN:-}" ]; then
  # once this node is up, join the cluster (a node restarted is still in it: mnesia
  # keeps that on disk, and joining again only says so)
  (for _ in $(seq 1 120); do ejabberdctl status >/dev/null 2>&1 && break; sleep 1; done
   ejabberdctl join_cluster "$MAW_EJABBERD_JOIN" >/dev/null 2>&1 || true) &
fi
exec ejabberdctl foreground
