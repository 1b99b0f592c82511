#!/bin/sh
# Generate configure and Makefile.in from the sources in git.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf -fi
