# Stand-in for node:20-bookworm-slim from Debian's own packages (Node 18 and npm): it builds the
# front-end assets only.
ARG DEBIAN_IMAGE=local/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm \
 && rm -rf /var/lib/apt/lists/*
CMD ["node"]
