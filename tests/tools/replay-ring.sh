#!/bin/sh
# perfring-replay on rings whose records wrap around the end of the data
# area (also with damage before the wrapping record, so that the walk after
# resynchronisation reassembles it), and on flight-recorder (overwrite)
# rings: the newest records, oldest first; damage there is reported (exit 1)
# and what the library's reader returned before it is kept.
. "$top_srcdir/tests/testlib.sh"
use_build_plugins
MK="$B/tests/tools/replay-mkring"

"$MK" wrap "$W/w.ring" >"$W/w.pos" || exit 1
end=$(($(od -An -t u8 -j 24 -N 8 "$W/w.ring" | tr -d ' ') + 4096 + 4096))
k=$(awk -v e=$end '$1 + $2 > e { print NR; exit }' "$W/w.pos")
[ -n "$k" ] && [ "$k" -gt 2 ] && ok "record $k wraps around the end" || { bad "no record wraps"; k=3; }
"$REPLAY" --json-out "$W/w.ring" | records >"$W/w.json"
[ $(grep -c '"SAMPLE"' "$W/w.json") -eq 60 ] && ok "60 records read" ||
	bad "$(grep -c '"SAMPLE"' "$W/w.json") records read"
times=$(sed -n 's/.*"time":\([0-9]*\).*/\1/p' "$W/w.json" | tr '\n' ' ')
[ "$times" = "$(cut -d' ' -f3 "$W/w.pos" | tr '\n' ' ')" ] && ok "the unconsumed ones, in order" ||
	bad "records: $times"
"$REPLAY" -o "$W/w.data" "$W/w.ring" 2>"$W/w.err"
status "replay a wrapped ring" 0 $?
"$REPLAY" --json-out "$W/w.data" | records >"$W/w2.json"
same "the perf.data holds them" "$W/w.json" "$W/w2.json"

cp "$W/w.ring" "$W/wd.ring"
o=$(sed -n "$((k - 1))p" "$W/w.pos" | cut -d' ' -f1)
poke "$W/wd.ring" $((o + 6)) '\004\000'
"$REPLAY" -o "$W/wd.data" "$W/wd.ring" 2>"$W/wd.err"
status "damage before the wrapping record" 1 $?
has "reported at its offset" "$W/wd.err" "offset $(printf '0x%x' $o): record size 4 below 8"
"$REPLAY" --json-out "$W/wd.data" | records >"$W/wd.json"
sed "$((k - 1))d" "$W/w.json" >"$W/wd.want"
same "every other record, the wrapping one included" "$W/wd.want" "$W/wd.json"

"$MK" overwrite "$W/o.ring" >"$W/o.pos" || exit 1
"$REPLAY" --json-out "$W/o.ring" | records >"$W/o.json"
nrec=$(wc -l <"$W/o.pos")
[ $(wc -l <"$W/o.json") -eq "$nrec" ] && ok "overwrite: the $nrec newest records" ||
	bad "overwrite: $(wc -l <"$W/o.json") records, expected $nrec"
has "overwrite: the newest is there" "$W/o.json" '"time":1199,'
times=$(sed -n 's/.*"time":\([0-9]*\).*/\1/p' "$W/o.json" | tr '\n' ' ')
[ "$times" = "$(cut -d' ' -f3 "$W/o.pos" | tr '\n' ' ')" ] && ok "overwrite: oldest first" ||
	bad "overwrite: $times"
"$REPLAY" -o "$W/o.data" "$W/o.ring" 2>"$W/o.err"
status "replay an overwrite ring" 0 $?
"$REPLAY" --json-out "$W/o.data" | records >"$W/o2.json"
same "overwrite: the perf.data holds them" "$W/o.json" "$W/o2.json"

cp "$W/o.ring" "$W/od.ring"
o=$(sed -n 10p "$W/o.pos" | cut -d' ' -f1)
poke "$W/od.ring" $((o + 6)) '\003\000'
"$REPLAY" -o "$W/od.data" "$W/od.ring" 2>"$W/od.err"
status "overwrite: damage" 1 $?
has "overwrite: reported at its offset" "$W/od.err" "offset $(printf '0x%x' $o): record size 3"
"$REPLAY" --json-out "$W/od.data" | records >"$W/od.json"
tail -n $((nrec - 10)) "$W/o.json" >"$W/od.want"
same "overwrite: the records newer than the damage are kept" "$W/od.want" "$W/od.json"

finish
