"""The cold CLI triage call reads the cached snapshot and writes JSON without pydantic: its output must be
byte for byte what the model path prints (YAML validated with pydantic, JSON through pydantic's TypeAdapter)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from mldebug_mcp.services import triage as service
from mldebug_mcp.triage import snapshot
from mldebug_mcp.triage.description import Description

SYMPTOMS = (
    "training loss goes to nan after a few hundred steps, I use fp16 with a learning rate of 1e-3",
    "validation accuracy stuck at 10% while training loss falls, I use nn.Softmax before CrossEntropyLoss",
    "my GAN discriminator loss goes to zero immediately",
    "loss stuck at 2.30 from the first epoch",
    "model always predicts the same class",
    "val accuracy is 99.8% which seems too good to be true, the test set shares patients with train",
    "works on 1 gpu but with DDP the loss diverges",
    "fine-tuned llama generates gibberish and never stops",
    "the reward of my PPO agent stays flat",
    "I tried lowering the learning rate, didn't help. The loss explodes after epoch 3. No NaN though.",
    # The last two need more than the snapshot: the glossary (YAML) and the linter.
    "训练损失不下降",
    ("```python\nfor x, y in loader:\n    out = F.softmax(model(x), dim=1)\n    loss = F.cross_entropy(out, y)\n"
     "    loss.backward()\n```\nloss does not decrease, a zymurgical flibbertigibbet"),
)
# (CLI options, the same as service keywords), one per symptom in turn
VARIANTS = (
    ([], {}),
    (["--catalogue"], {"include_catalogue": True}),
    (["--candidate", "double-softmax", "--candidate", "lr-too-high"], {"candidates": ["double-softmax", "lr-too-high"]}),
    (["--observe", "nan", "--observe", "cannot_overfit"], {"observations": ["nan", "cannot_overfit"]}),
    (["--detail", "compact", "--limit", "8", "--catalogue"], {"detail": "compact", "limit": 8, "include_catalogue": True}),
    (["--detail", "compact", "--observe", "plateau", "--candidate", "overfitting"],
     {"detail": "compact", "observations": ["plateau"], "candidates": ["overfitting"]}),
)
CASES = [("", ["--observe", "explodes"], {"observations": ["explodes"]})] + [
    (symptom, *VARIANTS[i % len(VARIANTS)]) for i, symptom in enumerate(SYMPTOMS)]
PLAIN = len(CASES) - 2  # the cases answered from the snapshot alone
FAST_RUN = """
import json, sys
from mldebug_mcp.cli import main
for argv in json.loads(sys.argv[1]):
    main(argv)
    print("\\x00", flush=True)
    print("LOADED", *sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "yaml", "platformdirs")),
          file=sys.stderr)
"""


@pytest.fixture(scope="module")
def warm_folder(tmp_path_factory):
    """A cache folder filled by this process: the snapshot and quotes it returns are the model path's own
    (built from the YAML with pydantic, never through JSON)."""
    folder = tmp_path_factory.mktemp("fast-path-cache")
    patch = pytest.MonkeyPatch()
    patch.setenv("MLDEBUG_CACHE_DIR", str(folder))
    snapshot.bundled.cache_clear()
    service._quotes.cache_clear()
    try:
        service.triage("warm the cache", detail="full")
        yield folder
    finally:
        patch.undo()
        snapshot.bundled.cache_clear()
        service._quotes.cache_clear()


def _model_path(symptom: str, options: dict) -> str:
    result = service.triage(symptom, **options)
    return json.dumps(result.to_json_data(), indent=2, ensure_ascii=False) + "\n"


def test_the_cold_cli_prints_the_model_paths_json_byte_for_byte_without_pydantic(warm_folder):
    expected = [_model_path(symptom, options) for symptom, _, options in CASES]
    argvs = [["triage", *(["--symptom", symptom] if symptom else []), *flags, "--json"] for symptom, flags, _ in CASES]
    env = {**os.environ, "MLDEBUG_CACHE_DIR": str(warm_folder)}
    proc = subprocess.run([sys.executable, "-c", FAST_RUN, json.dumps(argvs)], capture_output=True, env=env,
                          encoding="utf-8", check=True)
    printed = proc.stdout.split("\x00\n")[:-1]
    assert len(printed) == len(CASES)
    for (symptom, flags, _), want, got in zip(CASES, expected, printed):
        assert got == want, (symptom, flags)
    assert proc.stderr.splitlines()[:PLAIN] == ["LOADED"] * PLAIN, proc.stderr


def test_the_json_writer_matches_pydantics_for_every_detail(warm_folder):
    from mldebug_mcp.render.triage import triage_json_data

    for detail in ("compact", "full"):
        result = service.triage(SYMPTOMS[0], detail=detail, include_catalogue=True)
        assert json.dumps(triage_json_data(result)) == json.dumps(result.to_json_data())


def test_a_snapshot_read_back_from_json_ranks_as_the_one_built(warm_folder):
    from mldebug_mcp.triage import index_cache

    state = index_cache._read(next(warm_folder.glob("triage-index-*.json")), "terms")
    built = snapshot.bundled()
    restored = snapshot.Snapshot(state)
    assert list(restored.catalogue.causes) == list(built.catalogue.causes)
    assert restored.catalogue_text == built.catalogue_text
    for symptom in SYMPTOMS[:4]:
        fits = [{k: (f.score, f.matched_symptom, f.keywords) for k, f in s.index.fit(Description.read(symptom)).items()}
                for s in (built, restored)]
        assert fits[0] == fits[1]


def test_every_text_a_pattern_matches_holds_one_of_its_needles():
    """The needles skip a pattern only where it cannot match: checked on every phrasing the catalogue holds."""
    import re

    from mldebug_mcp.triage import needles, signals, text
    from mldebug_mcp.triage.catalogue import load_catalogue

    catalogue = load_catalogue()
    texts = [c.symptom for c in catalogue.cases] + [s for c in catalogue.causes.values()
                                                    for s in (*c.symptoms, c.summary, c.title, *c.keywords)]
    texts = [signals._unmarked(t) for t in (*texts, *SYMPTOMS)]
    patterns = [p for group in signals.PATTERNS.values() for p in group] + [p for p, _ in text.CONCEPTS]
    skipped = 0
    for pattern in patterns:
        found, compiled = needles.needles(pattern), re.compile(pattern)
        assert found, pattern  # each of today's patterns has needles; None would only cost time
        for candidate in texts:
            holds = all(any(n in candidate for n in group) for group in found)
            assert holds or not compiled.search(candidate), (pattern, candidate)
            skipped += not holds
    assert skipped > len(patterns) * len(texts) / 2  # most patterns are skipped for most texts


def test_needles_of_small_patterns():
    from mldebug_mcp.triage.needles import needles

    assert needles(r"\bnans?\b|-inf\b|not a number") == [["-inf", "nan", "not a number"]]
    assert needles(r"(?:loss|cost)\s+(?:is|was) zero") == [[" zero"], ["cost", "loss"], ["is", "was"]]
    # re's parser takes the arms' common prefix out of the branch: "re" then "cover" or "turn"
    assert needles(r"spik\w*\s+(?:\w+\s+){0,6}?(?:recover|return)") == [["cover", "turn"], ["re"], ["spik"]]
    assert needles(r"(?:a|b)?\w+") is None  # nothing required
    assert needles(r"(?i)loss") is None and needles(r"(?i:loss)x") == [["x"]]  # case-blind literals are no needles
    assert needles(r"x(?:loss|)") == [["x"]]  # an arm that requires nothing makes its branch no needle
    assert needles(r"(?:ab+c|d)e") == [["a", "d"], ["e"]]  # each arm by its most selective part
