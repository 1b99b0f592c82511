#!/bin/sh
# Java (OpenJDK 17+) with -XX:+UnlockDiagnosticVMOptions
# -XX:+DumpPerfMapAtExit, which writes /tmp/perf-PID.map at exit:
#  - perfring-record --no-jit, then perfring-replay --jit: the hot method's
#    share agrees with perf report reading the map itself within 3 points,
#    and it stays once the map is gone;
#  - perfring-record alone bakes it (summary, the method named).
# Skips (77) without perf, perf_event_open, java or javac.
. "$top_srcdir/tests/testlib.sh"
need_perf_sampling
command -v java >/dev/null && command -v javac >/dev/null ||
	skip "java/javac are not installed (Debian: apt-get install default-jdk-headless)"
need_event_open

d=$W/java
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
(cd "$d" && javac H.java) >"$d/javac.out" 2>&1 && ok "not: javac" || bad "javac: $(cat "$d/javac.out")"
sym='long H.f(long)'
flags="-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"

# pid_of DATA: the java process's pid
pid_of() {
	"$PERF" script -i "$1" -F comm,pid 2>/dev/null | awk '$1 == "java" { print $2; exit }'
}

(cd "$d" && "$REC" -e cpu-clock --no-jit -o raw.data -- java $flags -cp . H) \
	>"$d/rec.out" 2>&1 && ok "not: perfring-record java" || bad "perfring-record java: $(cat "$d/rec.out")"
pid=$(pid_of "$d/raw.data")
[ -n "$pid" ] && [ -f "/tmp/perf-$pid.map" ] && ok "not: java left no /tmp/perf-$pid.map" || bad "java left no /tmp/perf-$pid.map"
"$REPLAY" --jit -o "$d/out.data" "$d/raw.data" 2>"$W/replay.err" && ok "perfring-replay --jit exited $?" ||
	bad "perfring-replay --jit exited $?: $(cat "$W/replay.err")"
b=$(share "$d/raw.data" "$sym")
rm -f "/tmp/perf-$pid.map"
a=$(share "$d/out.data" "$sym")
echo "# '$sym': baked $a%, perf with the map $b%"
within "$a" "$b" 3 && ok "not: $a% vs perf's $b% with the map'" || bad "$a% vs perf's $b% with the map"
at_least "$a" 50 && ok "not: the hot method has only $a%" || bad "the hot method has only $a%"
no_warnings "$d/out.data"

(cd "$d" && "$REC" -e cpu-clock -o rec.data -- java $flags -cp . H) \
	>"$d/rec.out" 2>&1 && ok "not: perfring-record java (baking)" || bad "perfring-record java (baking): $(cat "$d/rec.out")"
grep -q 'JIT functions resolved (1 ELF)' "$d/rec.out" && ok "not: summary" || bad "summary: $(cat "$d/rec.out")"
pid=$(pid_of "$d/rec.data")
rm -f "/tmp/perf-$pid.map"
a=$(share "$d/rec.data" "$sym")
echo "# perfring-record: '$sym' $a%"
at_least "$a" 50 && ok "not: perfring-record: the hot method has only $a%" || bad "perfring-record: the hot method has only $a%"

finish
