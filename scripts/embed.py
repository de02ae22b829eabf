#!/usr/bin/env python3
"""Embed a text file into a C header as a string constant.

usage: embed.py NAME INPUT OUTPUT
Writes `static const char NAME[] = "...";` and `#define NAME_LEN n`.
"""
import sys


def main() -> int:
    name, src, dst = sys.argv[1:4]
    data = open(src, 'rb').read()
    out = [f'/* Generated from {src.split("/")[-1]} by embed.py; do not edit. */\n',
           f'static const char {name}[] =\n']
    for line in data.split(b'\n'):
        esc = ''.join(chr(b) if 32 <= b < 127 and b not in (34, 92, 63)
                      else f'\\{b:03o}' for b in line)
        out.append(f'    "{esc}\\n"\n')
    out.append(';\n')
    open(dst, 'w').write(''.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
