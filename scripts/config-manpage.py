#!/usr/bin/env python3
"""Writes motiond.toml(5), the configuration file's manual page, from the annotated
etc/motiond/motiond.toml itself, so the two never drift apart.

Usage: scripts/config-manpage.py [--date YYYY-MM-DD] [--version V] CONFIG OUTPUT

The file's conventions (its own header says them): the opening comment describes the file;
`#key = default` is a setting at its default, described by the comment lines just above it;
`#[table]` opens a table; lines indented after the '#' are examples; a comment block without a
setting describes what follows or stands alone. The page is mdoc(7), as the ArgumentParser
pages of motiond(8) and motionctl(1).
"""

import argparse
import datetime
import re
import sys

SETTING = re.compile(r"^#([A-Za-z][A-Za-z0-9-]*) = (.*)$")
TABLE = re.compile(r"^#(\[\[?[A-Za-z][A-Za-z0-9.-]*\]\]?)\s*$")
EXAMPLE = re.compile(r"^#   (.*)$")


def escape(text, argument=False):
    """Text safe in an mdoc line: backslashes escaped, characters beyond ASCII as groff's
    Unicode escapes, no control line by accident; in a macro's argument, quotes escaped too."""
    text = text.replace("\\", "\\e")
    if argument:
        text = text.replace('"', "\\(dq")
    text = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text)
    return "\\&" + text if text.startswith((".", "'")) else text


def prose(lines):
    """Comment lines as mdoc: text lines, examples as literal displays."""
    out = []
    literal = False
    for kind, text in lines:
        if kind == "example" and not literal:
            out.append(".Bd -literal -offset indent")
            literal = True
        elif kind == "text" and literal:
            out.append(".Ed")
            literal = False
        if kind == "blank":
            if literal:
                out.append(".Ed")
                literal = False
            out.append(".Pp")
        else:
            out.append(escape(text))
    if literal:
        out.append(".Ed")
    return out


def page(config, date, version):
    lines = config.split("\n")
    # The opening comment, up to the first blank line after it.
    header = []
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        text = lines[i][1:].strip()
        header.append(("blank", "") if text == "" else ("text", text))
        i += 1
    out = [
        '.\\" Generated from etc/motiond/motiond.toml by scripts/config-manpage.py',
        f".Dd {date.strftime('%B')} {date.day}, {date.year}",
        ".Dt MOTIOND.TOML 5",
        f".Os motiond {version}",
        ".Sh NAME",
        ".Nm motiond.toml",
        ".Nd configuration file of the motiond sensor daemon",
        ".Sh SYNOPSIS",
        ".Pa /etc/motiond/motiond.toml",
        ".Sh DESCRIPTION",
    ]
    out += prose(header[1:] if header and "configuration" in header[0][1] else header)
    out += [".Sh SETTINGS"]
    pending = []       # comment lines not yet given to a setting
    in_list = False

    def close_list():
        nonlocal in_list
        if in_list:
            out.append(".El")
            in_list = False

    def flush_pending():
        nonlocal pending
        if pending:
            close_list()
            out.append(".Pp")
            out.extend(prose(pending))
            pending = []

    for line in lines[i:]:
        if line.strip() == "":
            flush_pending()
            continue
        table = TABLE.match(line)
        setting = SETTING.match(line)
        example = EXAMPLE.match(line)
        if table:
            flush_pending()
            close_list()
            out.append(f".Ss {escape(table.group(1), argument=True)}")
        elif setting:
            if not in_list:
                out.append(".Bl -tag -width Ds")
                in_list = True
            out.append(f".It Cm {setting.group(1)} No = Li {escape(setting.group(2), argument=True)}")
            out.extend(prose(pending) or ["(no description)"])
            pending = []
        elif example:
            pending.append(("example", example.group(1)))
        elif line.startswith("#"):
            pending.append(("text", line[1:].strip()))
        else:
            raise SystemExit(f"config-manpage: not a comment, setting or table: {line!r}")
    flush_pending()
    close_list()
    out += [
        ".Sh FILES",
        ".Bl -tag -width Ds",
        ".It Pa /etc/motiond/motiond.toml",
        "The configuration, read at start and on",
        ".Ql systemctl reload motiond .",
        ".It Pa /usr/share/doc/motiond/motiond.toml",
        "The file as shipped, every setting at its default.",
        ".El",
        ".Sh SEE ALSO",
        ".Xr motionctl 1 ,",
        ".Xr motiond-rotate 1 ,",
        ".Xr motiond 8",
    ]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("config")
    ap.add_argument("output")
    ap.add_argument("--date", help="the page's date, YYYY-MM-DD (default today)")
    ap.add_argument("--version", default="", help="motiond's version, for the page footer")
    args = ap.parse_args()
    date = datetime.date.fromisoformat(args.date) if args.date else datetime.date.today()
    with open(args.config, encoding="utf-8") as f:
        text = page(f.read(), date, args.version)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
