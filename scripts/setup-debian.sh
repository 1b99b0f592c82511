#!/bin/sh
# Install what a fresh Debian 12 machine lacks to build and test libperfring.
# Runs apt-get only when a package is missing; needs root (or sudo) then.
set -e
pkgs="build-essential autoconf automake libtool autoconf-archive pkg-config
      libglib2.0-dev check libzstd-dev linux-perf clang valgrind binutils
      groff-base debhelper dpkg-dev fakeroot
      nodejs default-jdk-headless hotspot python3
      qemu-system-x86
      libelf-dev libdw-dev zlib1g-dev liblzma-dev xz-utils golang-go chromium"
# make bench's LTTng-UST comparison (not needed to build or test):
# PERFRING_BENCH=1 scripts/setup-debian.sh
[ "${PERFRING_BENCH:-}" = 1 ] && pkgs="$pkgs liblttng-ust-dev lttng-tools"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup-debian: installing:$missing"
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
else
	echo "setup-debian: all packages present"
fi

# The tracepoint tests need tracefs: mount it where the kernel has it and
# nothing mounted it yet (as root only; the tests skip, saying so, where
# there is none).
if [ "$(id -u)" -eq 0 ] && [ -d /sys/kernel/tracing ] && [ ! -d /sys/kernel/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		echo "setup-debian: tracefs could not be mounted on /sys/kernel/tracing"
fi
