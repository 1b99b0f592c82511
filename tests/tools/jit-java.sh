#!/bin/sh
# Java (OpenJDK 17+) with -XX:+UnlockDiagnosticVMOptions
# -XX:+DumpPerfMapAtExit, which writes /tmp/perf-PID.map at exit:
#  - perfring-record --no-jit, then perfring-replay --jit: the hot method's
#    share agrees with perf report reading the map itself within 3 points,
#    and it stays once the map is gone;
#  - perfring-record alone bakes it (summary, the method named).
# Skips (77) without perf, perf_event_open, java or javac.
name=jit-java.sh
. "$top_srcdir/tests/jit-lib.sh"
rec="$top_builddir/tools/perfring-record"
command -v java >/dev/null && command -v javac >/dev/null ||
	skip "java/javac are not installed (Debian: apt-get install default-jdk-headless)"
"$rec" --stat -e task-clock:u -- true 2>"$tmp/err" ||
	skip "perf_event_open is not usable here: $(cat "$tmp/err")"

d=$tmp/java
mkdir -p "$d"
cat >"$d/H.java" <<'JAVA'
public class H {
    static long f(long n) {
        long s = 0;
        for (long i = 0; i < n; i++)
            s += (i * i) ^ (s >> 3);
        return s;
    }
    public static void main(String[] a) {
        long end = System.nanoTime() + 1500000000L, t = 0;
        while (System.nanoTime() < end)
            t += f(100000);
        System.out.println(t != 0 ? "ok" : "none");
    }
}
JAVA
(cd "$d" && javac H.java) >"$d/javac.out" 2>&1 || fail "javac: $(cat "$d/javac.out")"
sym='long H.f(long)'
flags="-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"

# pid_of DATA: the java process's pid
pid_of() {
	"$perf" script -i "$1" -F comm,pid 2>/dev/null | awk '$1 == "java" { print $2; exit }'
}

(cd "$d" && "$rec" -e cpu-clock --no-jit -o raw.data -- java $flags -cp . H) \
	>"$d/rec.out" 2>&1 || fail "perfring-record java: $(cat "$d/rec.out")"
pid=$(pid_of "$d/raw.data")
[ -n "$pid" ] && [ -f "/tmp/perf-$pid.map" ] || fail "java left no /tmp/perf-$pid.map"
"$rep" --jit -o "$d/out.data" "$d/raw.data" 2>"$tmp/replay.err" ||
	fail "perfring-replay --jit exited $?: $(cat "$tmp/replay.err")"
b=$(share "$d/raw.data" "$sym")
rm -f "/tmp/perf-$pid.map"
a=$(share "$d/out.data" "$sym")
echo "$name: '$sym': baked $a%, perf with the map $b%"
within "$a" "$b" 3 || fail "$a% vs perf's $b% with the map"
at_least "$a" 50 || fail "the hot method has only $a%"
no_warnings "$d/out.data"

(cd "$d" && "$rec" -e cpu-clock -o rec.data -- java $flags -cp . H) \
	>"$d/rec.out" 2>&1 || fail "perfring-record java (baking): $(cat "$d/rec.out")"
grep -q 'JIT functions resolved (1 ELF)' "$d/rec.out" || fail "summary: $(cat "$d/rec.out")"
pid=$(pid_of "$d/rec.data")
rm -f "/tmp/perf-$pid.map"
a=$(share "$d/rec.data" "$sym")
echo "$name: perfring-record: '$sym' $a%"
at_least "$a" 50 || fail "perfring-record: the hot method has only $a%"

[ $fails -eq 0 ] && echo "$name: ok"
[ $fails -eq 0 ]
