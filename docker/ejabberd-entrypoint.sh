#!/bin/sh
# The ejabberd service of docker/compose.yaml: ejabberd/ecs run with the project's root
# ejabberd.yml (mounted at /maw/ejabberd.yml), changed only where a container must differ
# from a single machine, as scripts/ejabberd.sh changes only the port and certificate:
#   - listen on every interface of the container, not loopback (the players are other
#     containers; compose publishes the port on the host's loopback only);
#   - let clients on the private networks docker uses register, besides loopback;
#   - use the self-signed certificate the image makes (STARTTLS; agents do not verify it).
set -eu
src=${MAW_EJABBERD_YML:-/maw/ejabberd.yml}
out=${MAW_EJABBERD_OUT:-/home/ejabberd/conf/ejabberd.yml}
cert=${MAW_EJABBERD_CERT:-/home/ejabberd/conf/server.pem}
sed -e 's|ip: "127.0.0.1"|ip: "::"|' \
    -e "s|/etc/ejabberd/ejabberd.pem|$cert|" "$src" |
  awk '{ print } /- ::1\/128/ { print "      - 10.0.0.0/8"; print "      - 172.16.0.0/12";
                                print "      - 192.168.0.0/16" }' >"$out"
[ "${MAW_EJABBERD_DRY_RUN:-}" = 1 ] && exit 0
exec /home/ejabberd/bin/ejabberdctl foreground
