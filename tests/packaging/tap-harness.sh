#!/bin/sh
# The test harness itself: Automake's TAP driver (build-aux/tap-driver.sh,
# as tests/local.mk runs it through tests/run-tap.sh) fails a test that
# prints one planted "not ok" among "ok" lines, even when it exits 0; fails
# (ERROR) one whose plan does not match its checks, or that has no plan, or
# that exits 77 without a SKIP plan; passes one
# whose checks all pass; and reports a skip (exit 77 after "1..0 # SKIP
# REASON") as SKIP with its reason.  The helper's own ok / bad / skip /
# finish make those lines.
. "$top_srcdir/tests/testlib.sh"
driver=$top_srcdir/build-aux/tap-driver.sh
[ -f "$driver" ] || die "no $driver (autoreconf -i installs it)"
AM_TAP_AWK=${AWK:-awk}
export AM_TAP_AWK

# run NAME: the driver on $W/NAME.sh; sets result (its :test-result: lines)
# and global (its :global-test-result:).
run() {
	(cd "$W" && ${SHELL:-/bin/sh} "$driver" --test-name "$1.sh" --log-file "$1.log" \
		--trs-file "$1.trs" --color-tests no --enable-hard-errors yes --expect-failure no -- \
		${SHELL:-/bin/sh} "$top_srcdir/tests/run-tap.sh" ${SHELL:-/bin/sh} "$1.sh") \
		>"$W/$1.out" 2>&1
	result=$(sed -n 's/^:test-result: //p' "$W/$1.trs" | tr '\n' ' ')
	global=$(sed -n 's/^:global-test-result: //p' "$W/$1.trs")
}
# verdict NAME GLOBAL WHAT: the driver's verdict on NAME is GLOBAL (an ERE:
# FAIL and ERROR both fail the suite; ERROR is a broken plan or exit status)
verdict() {
	if echo "$global" | grep -Eqx "$2"; then ok "$3: $global ($result)"; else
		bad "$3: the driver says '$global' ($result), expected $2"
		sed 's/^/#   /' "$W/$1.trs" "$W/$1.log" | head -30
	fi
}
# A test in the helper's style, from its body.
script() {
	{ printf 'top_srcdir=%s; top_builddir=%s; export top_srcdir top_builddir\n' \
		"$top_srcdir" "$top_builddir"
	  echo '. "$top_srcdir/tests/testlib.sh"'
	  cat; } >"$W/$1.sh"
}

script planted <<'T'
ok "first"
bad "planted failure"
ok "third"
echo "1..3"
exit 0
T
run planted
verdict planted FAIL "a planted 'not ok' in a test that exits 0"
case $result in *FAIL*) ok "the planted 'not ok' is one FAIL result" ;;
*) bad "no FAIL result for the planted 'not ok': $result" ;; esac

script helper-fail <<'T'
ok "first"
bad "second"
finish
T
run helper-fail
verdict helper-fail "FAIL|ERROR" "bad then finish"
case $result in *FAIL*) ok "bad makes a FAIL result" ;;
*) bad "no FAIL result for bad: $result" ;; esac

script pass <<'T'
ok "first"
ok "second"
finish
T
run pass
verdict pass PASS "every check passes"

script plan <<'T'
ok "first"
echo "1..2"
T
run plan
verdict plan ERROR "a plan of 2 for 1 check"

script noplan <<'T'
ok "first"
T
run noplan
verdict noplan ERROR "no plan"

script skipped <<'T'
skip "the machine lacks the frobnicator"
T
run skipped
verdict skipped SKIP "skip REASON"
grep -q 'SKIP: skipped.sh .*the machine lacks the frobnicator' "$W/skipped.out" &&
	ok "the skip reason reaches the summary" ||
	bad "the skip reason is not in the driver's summary: $(cat "$W/skipped.out")"

script bare77 <<'T'
exit 77
T
run bare77
verdict bare77 ERROR "exit 77 without a SKIP plan"

finish
