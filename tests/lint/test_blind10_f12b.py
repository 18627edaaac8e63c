"""Blind split 10's optimiser and evaluation-mode families (task F12b), each with fixed twins that stay quiet."""

import textwrap

from mldebug_mcp.lint.engine import lint_source


def _lines(source: str, code: str, path: str = "predict.py") -> list[int]:
    return sorted(f.line for f in lint_source(textwrap.dedent(source), path) if f.code == code)


# MLD020: a prediction script whose whole body sits under `if __name__ == "__main__":` builds the model, loads
# its weights, then loops over inputs: eval() goes after the loading, in that block.
SCRIPT_UNDER_MAIN = """
    import glob
    import torch
    from nets import Generator


    if __name__ == "__main__":
        gen = Generator()
        gen.to("cuda")
        state = torch.load("g.pt")
        gen.load_state_dict(state["gen"])
    {switch}
        for path in glob.glob("inputs/*.npy"):
            x = torch.load(path)
            y = gen(x)
            torch.save(y, path + ".out")
"""

SCRIPT_HELPER_LOOP = """
    import torch
    from models import UNet


    def read(path):
        return torch.load(path)


    if __name__ == "__main__":
        net = UNet(3, 1)
        net.load_state_dict(torch.load("unet.pth", map_location="cpu"))
    {switch}
        with torch.no_grad():
            for i, name in enumerate(["a", "b"]):
                pred = net(read(name))
                print(i, pred.mean())
"""

SCRIPT_CHECKPOINT_DICT = """
    import sys
    import torch
    import models


    if __name__ == "__main__":
        print("loading")
        checkpoint = torch.load(sys.argv[1])
        model = models.Encoder(checkpoint["cfg"])
        model.load_state_dict(checkpoint["weights"])
    {switch}
        outputs = []
        for batch in torch.load(sys.argv[2]).split(8):
            outputs.append(model(batch))
        torch.save(torch.cat(outputs), sys.argv[3])
"""


def _load_line(source: str) -> int:
    return next(i for i, line in enumerate(textwrap.dedent(source).splitlines(), 1) if "load_state_dict" in line)


def test_script_under_main_guard_is_reported_after_loading():
    for source in (SCRIPT_UNDER_MAIN, SCRIPT_HELPER_LOOP, SCRIPT_CHECKPOINT_DICT):
        buggy = source.replace("    {switch}\n", "")
        assert _lines(buggy, "MLD020") == [_load_line(buggy)]


def test_script_under_main_guard_with_eval_is_quiet():
    for source, name in ((SCRIPT_UNDER_MAIN, "gen"), (SCRIPT_HELPER_LOOP, "net"), (SCRIPT_CHECKPOINT_DICT, "model")):
        fixed = source.replace("{switch}", f"    {name}.eval()")
        assert _lines(fixed, "MLD020") == []
