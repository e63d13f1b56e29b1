#!/usr/bin/env python3
"""Render a terminal capture with ANSI SGR colours (tmux capture-pane -e -p)
to a PNG, in DejaVu Sans Mono. Usage: ansi2png.py CAPTURE.txt OUT.png COLS ROWS"""
import re
import sys

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
SIZE = 15
BASE16 = [
    (30, 30, 30), (205, 49, 49), (13, 188, 121), (229, 229, 16),
    (36, 114, 200), (188, 63, 188), (17, 168, 205), (204, 204, 204),
    (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67),
    (59, 142, 234), (214, 112, 214), (41, 184, 219), (242, 242, 242),
]
FG, BG = (220, 220, 220), (24, 24, 27)


def xterm256(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


def apply_sgr(params, st):
    codes = [int(p) if p else 0 for p in params.split(";")] if params else [0]
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            st.update(fg=None, bg=None, bold=False, rev=False, ul=False)
        elif c == 1:
            st["bold"] = True
        elif c == 4:
            st["ul"] = True
        elif c == 7:
            st["rev"] = True
        elif c == 22:
            st["bold"] = False
        elif c == 24:
            st["ul"] = False
        elif c == 27:
            st["rev"] = False
        elif 30 <= c <= 37:
            st["fg"] = BASE16[c - 30]
        elif 90 <= c <= 97:
            st["fg"] = BASE16[c - 90 + 8]
        elif 40 <= c <= 47:
            st["bg"] = BASE16[c - 40]
        elif 100 <= c <= 107:
            st["bg"] = BASE16[c - 100 + 8]
        elif c == 39:
            st["fg"] = None
        elif c == 49:
            st["bg"] = None
        elif c in (38, 48) and i + 1 < len(codes):
            key = "fg" if c == 38 else "bg"
            if codes[i + 1] == 5 and i + 2 < len(codes):
                st[key] = xterm256(codes[i + 2])
                i += 2
            elif codes[i + 1] == 2 and i + 4 < len(codes):
                st[key] = tuple(codes[i + 2:i + 5])
                i += 4
        i += 1


# Braille dot bits by (column, row), as Unicode numbers them.
BRAILLE_DOTS = [(0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (1, 0, 0x08),
                (1, 1, 0x10), (1, 2, 0x20), (0, 3, 0x40), (1, 3, 0x80)]


def draw_braille(draw, bits, px, py, cw, ch, fg):
    """Draw a braille cell's dots (charts use them; the mono font lacks them)."""
    r = max(1, cw // 6)
    for col, row, bit in BRAILLE_DOTS:
        if bits & bit:
            cx = px + cw * (1 + 2 * col) // 4
            cy = py + ch * (1 + 2 * row) // 8
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=fg)


def main():
    src, out, cols, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    regular = ImageFont.truetype(FONT_DIR + "DejaVuSansMono.ttf", SIZE)
    bold = ImageFont.truetype(FONT_DIR + "DejaVuSansMono-Bold.ttf", SIZE)
    cw = round(regular.getlength("M"))
    ch = SIZE + 4
    pad = 10
    img = Image.new("RGB", (cols * cw + 2 * pad, rows * ch + 2 * pad), BG)
    draw = ImageDraw.Draw(img)
    st = dict(fg=None, bg=None, bold=False, rev=False, ul=False)
    token = re.compile(r"\x1b\[([0-9;]*)m|\x1b\[[0-9;?]*[A-Za-z]|(.)", re.S)
    with open(src, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    for y, line in enumerate(lines[:rows]):
        x = 0
        for m in token.finditer(line):
            if m.group(1) is not None:
                apply_sgr(m.group(1), st)
                continue
            char = m.group(2)
            if char is None or x >= cols:
                continue
            fg, bg = st["fg"] or FG, st["bg"] or BG
            if st["rev"]:
                fg, bg = bg, fg
            px, py = pad + x * cw, pad + y * ch
            if bg != BG:
                draw.rectangle([px, py, px + cw - 1, py + ch - 1], fill=bg)
            if 0x2800 <= ord(char) <= 0x28FF:
                draw_braille(draw, ord(char) - 0x2800, px, py, cw, ch, fg)
            elif char != " ":
                draw.text((px, py + 1), char, font=bold if st["bold"] else regular, fill=fg)
            if st["ul"]:
                draw.line([px, py + ch - 2, px + cw - 1, py + ch - 2], fill=fg)
            x += 1
    img.save(out)


if __name__ == "__main__":
    main()
