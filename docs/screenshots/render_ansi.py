#!/usr/bin/env python3
"""Renders a terminal capture (tmux capture-pane -p -e: text with SGR colour escapes) to a PNG, one
monospace cell per character. usage: render_ansi.py CAPTURE.ans OUT.png [COLUMNS ROWS]"""
import re
import sys

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
BASE16 = [(0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16), (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229),
          (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67), (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255)]
DEFAULT_FG, DEFAULT_BG = (220, 220, 220), (30, 30, 30)


def palette(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return steps[n // 36], steps[(n // 6) % 6], steps[n % 6]
    g = 8 + (n - 232) * 10
    return g, g, g


def parse(text):
    """Yields rows of cells (char, fg, bg, bold)."""
    fg, bg, bold, reverse = None, None, False, False
    for line in text.split("\n"):
        row = []
        for token in re.split(r"(\x1b\[[0-9;]*m)", line):
            m = re.fullmatch(r"\x1b\[([0-9;]*)m", token)
            if not m:
                for ch in token:
                    f, b = (fg or DEFAULT_FG), (bg or DEFAULT_BG)
                    row.append((ch, b if reverse else f, f if reverse else b, bold))
                continue
            codes = [int(c) if c else 0 for c in m.group(1).split(";")]
            i = 0
            while i < len(codes):
                c = codes[i]
                if c == 0: fg, bg, bold, reverse = None, None, False, False
                elif c == 1: bold = True
                elif c == 22: bold = False
                elif c == 7: reverse = True
                elif c == 27: reverse = False
                elif 30 <= c <= 37: fg = BASE16[c - 30]
                elif 90 <= c <= 97: fg = BASE16[c - 90 + 8]
                elif 40 <= c <= 47: bg = BASE16[c - 40]
                elif 100 <= c <= 107: bg = BASE16[c - 100 + 8]
                elif c == 39: fg = None
                elif c == 49: bg = None
                elif c in (38, 48) and i + 1 < len(codes):
                    if codes[i + 1] == 5 and i + 2 < len(codes):
                        colour = palette(codes[i + 2]); i += 2
                    elif codes[i + 1] == 2 and i + 4 < len(codes):
                        colour = tuple(codes[i + 2:i + 5]); i += 4
                    else:
                        colour = None
                    if c == 38: fg = colour
                    else: bg = colour
                i += 1
        yield row


def main():
    text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    rows = list(parse(text.rstrip("\n")))
    cols = int(sys.argv[3]) if len(sys.argv) > 3 else max(len(r) for r in rows)
    nrows = int(sys.argv[4]) if len(sys.argv) > 4 else len(rows)
    font, bold = ImageFont.truetype(FONT, 15), ImageFont.truetype(FONT_BOLD, 15)
    cw = round(font.getlength("M"))
    ch = 20
    img = Image.new("RGB", (cols * cw + 16, nrows * ch + 16), DEFAULT_BG)
    draw = ImageDraw.Draw(img)
    for y, row in enumerate(rows[:nrows]):
        for x, (c, f, b, is_bold) in enumerate(row[:cols]):
            px, py = 8 + x * cw, 8 + y * ch
            if b != DEFAULT_BG:
                draw.rectangle([px, py, px + cw - 1, py + ch - 1], fill=b)
            if c != " ":
                draw.text((px, py + 2), c, font=bold if is_bold else font, fill=f)
    img.save(sys.argv[2])


if __name__ == "__main__":
    main()
