#!/bin/sh
# The ejabberd container's health: the node runs and, for a node that joins a cluster
# (MAW_EJABBERD_JOIN), it is in that cluster, so nobody connects to it before it has
# joined (joining restarts its ejabberd).
ejabberdctl status >/dev/null 2>&1 || exit 1
[ -z "${MAW_EJABBERD_JOIN:-}" ] && exit 0
ejabberdctl list_cluster 2>/dev/null | grep -q "$MAW_EJABBERD_JOIN"
