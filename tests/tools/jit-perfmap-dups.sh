#!/bin/sh
# perfring-replay --jit with a perf map whose entries share start addresses
# (and overlap): every sample gets the name perf 6.1 gives it when perf
# reads the map itself.  perf's rule (util/symbol.c): every line goes, in
# file order, into a red-black tree keyed by start (an equal start to the
# right), with no fixup of duplicates or ends, and a lookup takes the first
# symbol covering the address on its way down from the root; so which of
# two entries at one start wins depends on the tree's shape, not on the
# order in the file alone (neither "first" nor "last" matches perf).
# One recording of examples/jit/tinyjit --perf-map, then maps made from
# its own: each function with 0 to 3 more entries at its start (the same
# size, half, double, 0, +8, 16 bytes; in every order), filler entries
# elsewhere that reshape the tree, some maps shuffled whole.  For each map,
# `perf script -F ip,sym` of the recording (perf reads the map) must equal
# that of replay --jit's output (and perf's skipping of a name shorter than
# 3 bytes).  Before: up to 1,348 of 1,963 samples
# differed on such maps.
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
cd "$W" || exit 1
"$PERF" record -k mono -e cpu-clock -F 5000 -q -o perf.data -- "$TINYJIT" --perf-map -n 50 -t 600 \
	>rec.out 2>&1 || die "perf record tinyjit --perf-map: $(tail -n 3 rec.out)"
pid=$("$PERF" script -i perf.data -F comm,pid 2>/dev/null | awk '$1 == "tinyjit" { print $2; exit }')
map=/tmp/perf-$pid.map
[ -n "$pid" ] && [ -s "$map" ] || die "no perf map from tinyjit (pid '$pid')"
mv "$map" orig.map
trap 'rm -f "$map"; tl_cleanup' EXIT

# mkmap SEED: orig.map with duplicates, overlaps and fillers
mkmap() {
	awk -v seed="$1" '
	function pick(n) { return int(rand() * n) }
	BEGIN { srand(seed) }
	{ s[NR] = $1; z[NR] = $2; n[NR] = $3 }
	END {
		base = strtonum_("0x" s[1])
		m = 0
		for (i = 1; i <= NR; i++) {
			size = strtonum_("0x" z[i]); k = pick(4)
			g = 0; gs[g] = s[i]; gz[g] = size; gn[g] = n[i]
			for (j = 1; j <= k; j++) {
				c = pick(6)
				d = c == 0 ? size : c == 1 ? int(size / 2) : c == 2 ? 2 * size : c == 3 ? 0 : c == 4 ? size + 8 : 16
				g++; gs[g] = s[i]; gz[g] = d; gn[g] = "dup" j "_" d "_" n[i]
			}
			for (j = g; j > 0; j--) {	# shuffle the group
				r = pick(j + 1); t1 = gs[j]; t2 = gz[j]; t3 = gn[j]
				gs[j] = gs[r]; gz[j] = gz[r]; gn[j] = gn[r]; gs[r] = t1; gz[r] = t2; gn[r] = t3
			}
			for (j = 0; j <= g; j++) { m++; es[m] = gs[j]; ez[m] = sprintf("%x", gz[j]); en[m] = gn[j] }
		}
		f = pick(300)
		for (j = 0; j < f; j++) {	# fillers at random places in the file
			r = pick(m + 1) + 1
			for (q = m; q >= r; q--) { es[q + 1] = es[q]; ez[q + 1] = ez[q]; en[q + 1] = en[q] }
			m++; es[r] = sprintf("%x", base + 1048576 + 64 * j); ez[r] = "40"; en[r] = "filler_" j
		}
		if (seed % 3 == 0)
			for (j = m; j > 1; j--) {
				r = pick(j) + 1; t1 = es[j]; t2 = ez[j]; t3 = en[j]
				es[j] = es[r]; ez[j] = ez[r]; en[j] = en[r]; es[r] = t1; ez[r] = t2; en[r] = t3
			}
		for (j = 1; j <= m; j++) print es[j], ez[j], en[j]
	}
	function strtonum_(h,   v, i, c) {
		v = 0; h = tolower(substr(h, 3))
		for (i = 1; i <= length(h); i++) { c = index("0123456789abcdef", substr(h, i, 1)) - 1; v = v * 16 + c }
		return v
	}' orig.map
}

total=0 dupnamed=0
for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
	mkmap $seed >"$map"
	"$PERF" script -i perf.data -F ip,sym >want.$seed 2>/dev/null
	"$REPLAY" --jit -o out.data perf.data >/dev/null 2>rep.err ||
		bad "map $seed: replay --jit exited $?: $(cat rep.err)"
	"$PERF" script -i out.data -F ip,sym >got.$seed 2>/dev/null
	n=$(wc -l <want.$seed) d=$(grep -c ' dup' want.$seed)
	total=$((total + n)) dupnamed=$((dupnamed + d))
	same "map $seed ($(wc -l <"$map") entries): all $n samples named as perf names them ($d by a duplicate)" \
		want.$seed got.$seed
done
[ "$dupnamed" -gt 0 ] && ok "perf named $dupnamed of $total samples by a second entry at a start" ||
	bad "no sample was named by a duplicate entry: the maps test nothing"
# perf skips a line whose name is shorter than 3 bytes: so must we.
awk 'NR == 1 { print $1, $2, "ab"; print $1, "20", "hot_fn_0_half"; next } { print }' orig.map >"$map"
"$PERF" script -i perf.data -F ip,sym >want.s 2>/dev/null
"$REPLAY" --jit -o out.data perf.data >/dev/null 2>rep.err
"$PERF" script -i out.data -F ip,sym >got.s 2>/dev/null
hasnt "perf gives no sample the 2-byte name" want.s ' ab$'
same "a 2-byte name: named as perf names them" want.s got.s
# The plain map: unchanged behaviour.
cp orig.map "$map"
"$PERF" script -i perf.data -F ip,sym >want.0 2>/dev/null
"$REPLAY" --jit -o out.data perf.data >/dev/null 2>rep.err
grep -q -- '--jit: 50 JIT functions resolved' rep.err && ok "the plain map: 50 functions" ||
	bad "the plain map: $(cat rep.err)"
"$PERF" script -i out.data -F ip,sym >got.0 2>/dev/null
same "the plain map: named as perf names them" want.0 got.0
finish
