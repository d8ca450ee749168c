# deadline-only.awk: exits 0 when the output of a failed `go test -fuzz`
# run shows that the run ended only because -fuzztime ran out.
#
# Go 1.26's fuzz coordinator has a race at that moment (go.dev/issue/75804,
# fixed in Go 1.27): when the -fuzztime deadline fires before the workers'
# context is cancelled, it reports the deadline itself, a bare
# "context deadline exceeded", as the target's failure. Any real finding
# replaces that error, and prints its own message and the input it wrote,
# so the signature is exact: besides the progress lines the output holds
# only the FAIL banner, that one error line, and go test's exit lines.
/^fuzz: elapsed: / || /^warning: starting with empty corpus$/ { next }
/^--- FAIL: Fuzz[A-Za-z0-9_]* \([0-9.]+s\)$/ { banner++; next }
/^    context deadline exceeded$/ { deadline++; next }
/^FAIL$/ || /^exit status 1$/ || /^FAIL\t[^\t]+\t[0-9.]+s$/ { next }
{ other++ }
END { exit !(banner == 1 && deadline == 1 && other == 0) }
