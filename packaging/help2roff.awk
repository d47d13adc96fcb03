# Turns a Pinhole `--help` text into man(7) markup, for scripts/package's man pages:
#   awk -v part=synopsis|body|exit -f packaging/help2roff.awk HELP-TEXT
# synopsis: the "Usage:" line; exit: the "Exit codes:" paragraph as a list; body: the rest.
# In the body, text at the margin is filled; a row indented by two spaces is a term (option or
# command) with its description after two or more spaces, or, when the term fills its column,
# after one space at the column the block's other descriptions start at (when a lower-case word
# starts there); deeper lines continue the description above them.
# (mawk counts bytes, not characters: columns are only compared within a block, where they agree
# unless a term holds a multi-byte character, and such a row is split at its two spaces anyway.)

function esc(s) {
  gsub(/\\/, "\\e", s)
  gsub(/-/, "\\-", s)
  # `command` in the help text: bold in the page.
  while (match(s, /`[^`]+`/)) s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 1, RLENGTH - 2) "\\fR" substr(s, RSTART + RLENGTH)
  if (s ~ /^[.']/) s = "\\&" s
  return s
}

# A term: options and the leading command words bold, metavariables (capitals) italic, brackets and
# alternatives as they are.
function term(s,    n, words, i, out, w, pre, core, post, leading) {
  n = split(s, words, " ")
  out = ""
  for (i = 1; i <= n; i++) {
    w = words[i]
    match(w, /^\[*/); pre = substr(w, 1, RLENGTH); w = substr(w, RLENGTH + 1)
    match(w, /[],]*$/); post = substr(w, RSTART); core = substr(w, 1, RSTART - 1)
    if (i == 1 || leading) leading = (pre == "" && core ~ /^[a-z][a-z0-9-]*$/)   # the program and command words
    if (core ~ /^-/ || leading) core = "\\fB" esc(core) "\\fR"
    else if (core ~ /^[A-Z]/) core = "\\fI" esc(core) "\\fR"
    else core = esc(core)
    out = out (i > 1 ? " " : "") pre core post
  }
  return out
}

function flush_block(    i, line, body, pos, col, best, count, c, lead, split_at, rest) {
  if (nrows == 0) return
  # The column most rows' descriptions start at.
  delete count
  best = 0; col = 0
  for (i = 1; i <= nrows; i++) {
    line = rows[i]
    if (line !~ /^  [^ ]/) continue
    if (match(substr(line, 3), /[^ ]  +[^ ]/)) {
      c = 2 + RSTART + RLENGTH - 1
      if (++count[c] > best) { best = count[c]; col = c }
    }
  }
  for (i = 1; i <= nrows; i++) {
    line = rows[i]
    match(line, /^ */); lead = RLENGTH
    body = substr(line, lead + 1)
    if (lead > 2 && started) { print esc(body); continue }   # a description's next line
    started = 1
    split_at = 0
    if (match(body, /  +/)) { split_at = RSTART }
    else if (col > lead + 2 && substr(line, col - 1, 1) == " " && substr(line, col - 2, 1) != " " && substr(line, col, 1) ~ /[a-z]/) {
      split_at = col - 1 - lead
    }
    print ".TP"
    if (split_at) {
      rest = substr(body, split_at); sub(/^ +/, "", rest)
      print term(substr(body, 1, split_at - 1))
      print esc(rest)
    } else {
      print term(body)
    }
  }
  nrows = 0; started = 0
}

BEGIN { nrows = 0; skipping = 0; paragraph = 0 }

part == "synopsis" && /^Usage: / { print term(substr($0, 8)); print ".br"; next }
part == "synopsis" { next }

# "Exit codes: 0 ok, 1 camera or image failure, …, 7 no library item with that ID." as a list.
part == "exit" && /^Exit codes:/ { codes = substr($0, 12); inexit = 1; next }
part == "exit" && inexit && /^ / { codes = codes " " $0; next }
part == "exit" { inexit = 0; next }

# Usage and Exit codes paragraphs (with their indented continuation lines): left out.
part != "body" { next }
/^(Usage|Exit codes):/ { flush_block(); skipping = 1; next }
skipping && /^ / { next }
{ skipping = 0 }

/^$/ { flush_block(); if (paragraph) { pending_pp = 1 }; next }

/^  / {
  if (nrows == 0) pending_pp = 0   # .TP starts its own paragraph
  rows[++nrows] = $0; paragraph = 1; next
}

{
  flush_block()
  if (pending_pp) { print ".PP"; pending_pp = 0 }
  # A heading such as "Commands:" on a line of its own.
  if ($0 ~ /^[A-Z][A-Za-z ]*:$/) { print ".SS \"" substr($0, 1, length($0) - 1) "\""; paragraph = 0; next }
  print esc($0); paragraph = 1
}

END {
  if (part == "exit") {
    gsub(/  +/, " ", codes); sub(/^ /, "", codes); sub(/\.$/, "", codes)
    n = split(codes, items, /, /)
    for (i = 1; i <= n; i++) {
      if (items[i] ~ /^[0-9]+ /) {
        if (code != "") { print ".TP"; print ".B " code; print esc(text) }
        code = items[i]; sub(/ .*/, "", code); text = substr(items[i], length(code) + 2)
      } else text = text ", " items[i]   # a comma inside a code's words
    }
    if (code != "") { print ".TP"; print ".B " code; print esc(text) }
  } else if (part == "body") flush_block()
}
