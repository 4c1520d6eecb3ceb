#!/bin/sh
# npm for the Containerfile's install steps. When the build passes a CA bundle as the build secret `agentctl_ca`
# (a network that intercepts TLS), npm and Node trust it for this one command; the bundle is a file mounted only
# while this step runs, never an argument, environment entry, layer or history line of the image.
set -eu
if [ -s /run/secrets/agentctl_ca ]; then
  NODE_EXTRA_CA_CERTS=/run/secrets/agentctl_ca
  npm_config_cafile=/run/secrets/agentctl_ca
  export NODE_EXTRA_CA_CERTS npm_config_cafile
fi
exec npm "$@"
