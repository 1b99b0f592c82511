# Sourced by the perfring-export tests after tests/testlib.sh: go tool
# pprof (required: golang-go, which scripts/setup-debian.sh installs), the
# tool, and the scratch directory as the current one.
command -v go >/dev/null 2>&1 || skip "go is not installed (apt-get install golang-go)"
EXP=$B/tools/perfring-export
GOCACHE=$W/gocache
export GOCACHE
cd "$W" || die "cd $W"

# pprof_samples PROFILE: the samples go tool pprof -raw counts (the sum of
# the COUNT columns of its "COUNT VALUE ...: LOCATIONS" lines, one COUNT
# VALUE pair per event)
pprof_samples() {
	go tool pprof -raw "$1" 2>/dev/null | awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 }
		s && /^ +[0-9]+ .*:/ { for (i = 1; i <= NF; i++) { v = $i; e = v ~ /:$/; sub(/:$/, "", v)
			if (i % 2) t += v; if (e) break } }
		END { print t + 0 }'
}
