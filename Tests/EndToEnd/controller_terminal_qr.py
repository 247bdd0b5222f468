#!/usr/bin/env python3
"""End to end: the QR code of `simplex-host controller` as a user sees it. The interactive mode runs in a real
terminal (a tmux pane of a given size); the screen, captured with its colours (`tmux capture-pane -e`), is turned
back into an image cell by cell — not drawn from the QR matrix — and zbar (zbarimg) must decode it to exactly the
link on the same screen. In an 80×24 terminal the code does not fit and the file forms are offered; the PNG and SVG
files decode too. The whole interactive flow runs in the terminal as well: session code, confirmation, a command at
the prompt, an upload with its progress bar.

usage: controller_terminal_qr.py PATH/TO/simplex-host
Prints one line per check and `N passed, M failed` last; exits non-zero on any failure.
"""
import json, os, re, subprocess, sys, tempfile, time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from host_with_python_controller import Proc  # noqa: E402

SESSION = f"sxq{os.getpid()}"
STUB = os.path.join(os.path.dirname(os.path.dirname(HERE)), "Tests", "Peers", "xrcp_host_stub.py")
passed, failed = 0, 0

# The 16 ANSI colours as xterm draws them; only light or dark matters here.
PALETTE = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
           (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255),
           (0, 255, 255), (255, 255, 255)]
# A dark theme: the test's terminal shows light text on black unless told otherwise.
DEFAULT_FG, DEFAULT_BG = (229, 229, 229), (0, 0, 0)
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {str(detail)[:800]}")
    return ok


def colour256(n):
    if n < 16:
        return PALETTE[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return steps[n // 36], steps[n // 6 % 6], steps[n % 6]
    v = 8 + 10 * (n - 232)
    return v, v, v


def apply_sgr(params, fg, bg):
    codes = [int(p) if p else 0 for p in params.split(";")] if params else [0]
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            fg, bg = DEFAULT_FG, DEFAULT_BG
        elif 30 <= c <= 37:
            fg = PALETTE[c - 30]
        elif 90 <= c <= 97:
            fg = PALETTE[c - 90 + 8]
        elif 40 <= c <= 47:
            bg = PALETTE[c - 40]
        elif 100 <= c <= 107:
            bg = PALETTE[c - 100 + 8]
        elif c == 39:
            fg = DEFAULT_FG
        elif c == 49:
            bg = DEFAULT_BG
        elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
            if c == 38:
                fg = colour256(codes[i + 2])
            else:
                bg = colour256(codes[i + 2])
            i += 2
        elif c in (38, 48) and i + 4 < len(codes) and codes[i + 1] == 2:
            rgb = tuple(codes[i + 2:i + 5])
            if c == 38:
                fg = rgb
            else:
                bg = rgb
            i += 4
        i += 1
    return fg, bg


def screen_to_image(screen, path, scale=4):
    """Each character cell becomes two square pixels blocks (its upper and lower halves) in the colours the terminal
    gives them: `▀` upper half foreground, `▄` lower half, `█` both, anything else the background. Written as PGM."""
    rows = []
    fg, bg = DEFAULT_FG, DEFAULT_BG
    for line in screen.split("\n"):
        top, bottom = [], []
        pos = 0
        while pos < len(line):
            m = SGR.match(line, pos)
            if m:
                fg, bg = apply_sgr(m.group(1), fg, bg)
                pos = m.end()
                continue
            ch = line[pos]
            pos += 1
            upper = fg if ch in "▀█" else bg
            lower = fg if ch in "▄█" else bg
            top.append(upper)
            bottom.append(lower)
        rows += [top, bottom]
    width = max(len(r) for r in rows) if rows else 0
    grey = []
    for r in rows:
        line = [(c[0] * 299 + c[1] * 587 + c[2] * 114) // 1000 for c in r] + [DEFAULT_BG[0]] * (width - len(r))
        grey.append(line)
    with open(path, "wb") as f:
        f.write(f"P5\n{width * scale} {len(grey) * scale}\n255\n".encode())
        for line in grey:
            row = bytes(v for v in line for _ in range(scale))
            f.write(row * scale)


def zbar(path):
    r = subprocess.run(["zbarimg", "--raw", "-q", "-Sbinary", path], capture_output=True)
    return r.stdout.decode("utf-8", "replace").rstrip("\n") if r.returncode == 0 else None


def tmux(*args, check_rc=True):
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=check_rc)


def run_in_terminal(binary, data, columns, lines, *extra):
    """Starts the interactive controller in a detached tmux session of the given size; returns the captured screen
    (with colours) and its text with wrapped lines joined, once the prompt is shown."""
    tmux("kill-session", "-t", SESSION, check_rc=False)
    command = [binary, "controller", "--data", data, "--device-name", "Terminal Test", "--addr", "127.0.0.1",
               "--iface", "lo", *extra]
    tmux("new-session", "-d", "-s", SESSION, "-x", str(columns), "-y", str(lines),
         " ".join(f"'{a}'" for a in command))
    tmux("set-option", "-t", SESSION, "window-size", "manual", check_rc=False)
    tmux("resize-window", "-t", SESSION, "-x", str(columns), "-y", str(lines), check_rc=False)
    text = ""
    for _ in range(100):
        time.sleep(0.1)
        text = tmux("capture-pane", "-p", "-J", "-t", SESSION).stdout
        if "Waiting for the host" in text:
            break
    # -N keeps the trailing spaces: the quiet zone is coloured spaces, part of what the user sees.
    colours = tmux("capture-pane", "-p", "-e", "-N", "-t", SESSION).stdout
    size = tmux("display-message", "-p", "-t", SESSION, "#{pane_width}x#{pane_height}").stdout.strip()
    return colours, text, size


def wait_screen(done, timeout=20):
    """The pane's whole history, once `done` holds for it (or the timeout passed)."""
    text = ""
    deadline = time.time() + timeout
    while time.time() < deadline:
        text = tmux("capture-pane", "-p", "-J", "-S", "-", "-t", SESSION).stdout
        if done(text):
            break
        time.sleep(0.1)
    return text


def type_line(line):
    tmux("send-keys", "-t", SESSION, "-l", line)
    tmux("send-keys", "-t", SESSION, "Enter")


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data")
        try:
            for style, columns, lines, extra in (("half blocks", 110, 60, []),
                                                  ("full blocks", 200, 120, ["--qr-style", "full"]),
                                                  ("inverted", 110, 60, ["--qr-invert"])):
                colours, text, size = run_in_terminal(binary, data, columns, lines, *extra)
                check(f"{style}: the terminal is {columns}×{lines}", size == f"{columns}x{lines}", size)
                links = [l.strip() for l in text.split("\n") if l.strip().startswith("xrcp:/")]
                check(f"{style}: the link is on screen", len(links) == 1, text)
                check(f"{style}: the prompt is on screen", "Waiting for the host to connect (Ctrl-D quits)> " in text,
                      text)
                image = os.path.join(tmp, "screen.pgm")
                screen_to_image(colours, image)
                if "--qr-invert" in extra:
                    # Scanners that need it read light modules on dark: the screen is the exact negative.
                    with open(image, "rb") as f:
                        head = f.readline() + f.readline() + f.readline()
                        body = f.read()
                    with open(image, "wb") as f:
                        f.write(head + bytes(255 - b for b in body))
                decoded = zbar(image)
                check(f"{style}: zbar decodes the screen to exactly the link", links and decoded == links[0],
                      (decoded, links))
                tmux("kill-session", "-t", SESSION, check_rc=False)

            colours, text, size = run_in_terminal(binary, data, 80, 24)
            check("80×24: the terminal is 80×24", size == "80x24", size)
            check("80×24: says the code does not fit and offers the file forms",
                  "this terminal is 80×24" in text and "--qr png:FILE" in text and "--qr svg:FILE" in text, text)
            check("80×24: no code is drawn", "▀" not in colours and "▄" not in colours, colours)
            check("80×24: the link is still there", any(l.strip().startswith("xrcp:/") for l in text.split("\n")), text)
        finally:
            tmux("kill-session", "-t", SESSION, check_rc=False)

        # The whole interactive flow in a 110×60 terminal: a host takes the link from the screen, the session code is
        # put to the user, who confirms it; a command typed at the prompt runs on the host, an upload shows progress.
        files = os.path.join(tmp, "host-files")
        os.makedirs(files)
        upload = os.path.join(tmp, "upload.bin")
        with open(upload, "wb") as f:
            f.write(os.urandom(5_000_000))
        try:
            _, text, _ = run_in_terminal(binary, os.path.join(tmp, "interactive"), 110, 60)
            links = [l.strip() for l in text.split("\n") if l.strip().startswith("xrcp:/")]
            host = Proc([sys.executable, STUB, "--pairing", os.path.join(tmp, "pairing.json"), "--uri",
                         links[0] if links else "", "--files", files])
            stub_code = host.wait(lambda m: m.get("event") == "sessionCode")
            screen = wait_screen(lambda t: "Does the host show the same code?" in t)
            check("interactive: the session code is shown and put to the user",
                  stub_code and f"Session code: {stub_code.get('code')}" in screen, (stub_code, screen[-600:]))
            type_line("yes")
            screen = wait_screen(lambda t: "Connected to Stub Phone (remote host 1)" in t)
            check("interactive: confirmed and connected", "Connected to Stub Phone (remote host 1)" in screen, screen[-600:])
            type_line("/_stub event")
            screen = wait_screen(lambda t: '"type":"stubEvent"' in t)
            check("interactive: a command typed at the prompt runs on the host",
                  '{"remoteHostId":1,"result":{"type":"cmdOk"}}' in screen, screen[-600:])
            check("interactive: the host's event is printed as it arrives", '"type":"stubEvent"' in screen, screen[-600:])
            type_line(f"/store remote file 1 encrypt=off {upload}")
            screen = wait_screen(lambda t: "remoteFileStored" in t)
            check("interactive: an upload shows a progress bar to 100%", "] 100% 5.0 / 5.0 MB" in screen, screen[-600:])
            check("interactive: and is stored on the host", os.path.exists(os.path.join(files, "upload.bin")))
            host.close()
        finally:
            tmux("kill-session", "-t", SESSION, check_rc=False)

        # The file forms, from the scripting mode.
        for kind in ("png", "svg"):
            path = os.path.join(tmp, f"invitation.{kind}")
            ctrl = Proc([binary, "controller", "--json", "--data", os.path.join(tmp, kind), "--qr", f"{kind}:{path}"])
            ctrl.send({"corrId": "1", "cmd": "/start remote host new addr=127.0.0.1 iface=lo"})
            r = ctrl.wait(lambda m: m.get("corrId") == "1")
            uri = ((r or {}).get("resp") or {}).get("invitation")
            ctrl.close()
            check(f"--qr {kind}:FILE decodes to exactly the invitation", uri and zbar(path) == uri, (uri, json.dumps(r)))
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
