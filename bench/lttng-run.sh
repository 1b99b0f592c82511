#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# lttng-run.sh LTTNG_BENCH WORKDIR: run bench/lttng-bench in an active
# LTTng user-space session (64 MiB of sub-buffers, like the perfring ring),
# then print how many events LTTng discarded.  Starts a session daemon only
# if none runs, and stops only the one it started.
set -u
BIN=$1; W=$2
S=perfring-bench-$$
started=
if ! lttng list >/dev/null 2>&1; then
	lttng-sessiond --daemonize >/dev/null 2>&1 || exit 1
	started=yes
	sleep 1
fi
cleanup() {
	lttng destroy "$S" >/dev/null 2>&1
	if test -n "$started"; then
		pid=$(cat "${LTTNG_HOME:-$HOME}/.lttng/lttng-sessiond.pid" 2>/dev/null ||
		      cat /var/run/lttng/lttng-sessiond.pid 2>/dev/null)
		test -n "$pid" && kill "$pid" 2>/dev/null
	fi
}
trap cleanup EXIT
lttng create "$S" --output="$W/lttng-trace" >/dev/null &&
lttng enable-channel -u --subbuf-size=4M --num-subbuf=16 ch0 >/dev/null &&
lttng enable-event -u -c ch0 'perfring_bench:*' >/dev/null &&
lttng start >/dev/null || exit 1
LTTNG_UST_REGISTER_TIMEOUT=3000 "$BIN"; rc=$?
lttng stop >/dev/null 2>&1
d=$(lttng list "$S" 2>/dev/null | sed -n 's/.*[Dd]iscarded events: *\([0-9]*\).*/\1/p' | head -n 1)
echo "INFO lttng: session $S, channel 64 MiB (16 x 4 MiB), discarded events: ${d:-unknown}"
rm -rf "$W/lttng-trace"
exit $rc
