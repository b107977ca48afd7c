#!/bin/sh
# As the official image does: a server started without a configuration file listens on every
# address of its container (the compose network) instead of refusing non-local clients.
set -e
if [ "$1" = "redis-server" ]; then
  case "${2:-}" in
    *.conf) ;;
    *) shift; set -- redis-server --protected-mode no "$@" ;;
  esac
fi
exec "$@"
