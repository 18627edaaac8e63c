"""Observations read from a free-text description: "nan after 300 iterations" -> `nan`.

Each observation key has patterns over the lower-cased text. Matches are hints, weaker than an
observation the user states explicitly (or a tool measures), and the ranking weighs them so."""

from __future__ import annotations

import re

from .needles import LazyPattern

_LOSS = r"(?:loss|cost|error|objective|mse|perplexity|ppl)"
_NEG = r"(?:not|n't|never|no longer|cannot|can't|won't|fails? to|unable to|barely|hardly)"
_LIBRARY = (r"(?:torch|pytorch|transformers|tensorflow|tf|keras|jax|jaxlib|flax|numpy|cuda|cudnn|rocm|peft|trl|accelerate"
            r"|deepspeed|bitsandbytes|lightning|pytorch-lightning|xformers|timm|diffusers|datasets|gym|gymnasium|sklearn|scikit-learn"
            r"|python|mxnet|paddle|onnxruntime|triton|vllm|unsloth|stable-baselines3|sb3|ray|rllib)")
_GAP = r"(?:(?!but\b|while\b|although\b|whereas\b|yet\b)\w+\s+)"  # filler words, never across a contrast
_STUCK = (rf"{_NEG}\s+(?:\w+\s+){{0,3}}?(?:decreas|go(?:es|ing)? down|drop|improv|learn|chang|mov|converg|reduc|budg|fall)"
          r"|\bstuck\b|plateau|\bflat\b|stagnat|\bconstant\b|same value|stays? (?:the same|at|around|about|near)"
          r"|hover|doesn'?t budge|remains? (?:the same|at|around|constant)|stall")

PATTERNS: dict[str, tuple[str, ...]] = {
    "crash": (r"traceback|exception\b|\w+error:|raises? an? \w*error|\bcrash\w*|segfault|core dumped",),
    "nan": (r"\bnans?\b|\binf\b|-inf\b|infinity|not a number|non-?finite",),
    "loss_zero": (rf"{_LOSS}\s+(?:\w+\s+){{0,3}}?(?:is|was|becomes?|became|goes to|went to|drops? to|equals?|=|:|of|at)\s+"
                  r"(?:exactly |always |just )?(?:0(?:\.0+)?|zero)(?![.\d])",
                  rf"\bzero {_LOSS}|{_LOSS} (?:of )?0\.0+(?![1-9])|all (?:the )?labels? (?:are|were) -100"),
    "init_loss_high": (rf"(?:initial|starting|first|start(?:ing)?) {_LOSS}\s+(?:\w+\s+){{0,3}}?(?:is |was )?(?:very |really |extremely )?"
                       r"(?:high|huge|large|big)", rf"{_LOSS} (?:starts?|begins?) (?:very |really )?(?:high|huge|large)"),
    "init_loss_low": (rf"(?:initial|starting|first) {_LOSS}\s+(?:\w+\s+){{0,3}}?(?:is |was )?(?:already |very |suspiciously )?(?:low|small|tiny)",
                      rf"{_LOSS} (?:starts?|begins?) (?:already |very )?(?:low|small)"),
    "cannot_overfit": (r"(?:can'?t|cannot|unable to|fails? to|doesn'?t|does not|won'?t|not able to) (?:even )?(?:over-?fit|memori[sz]e)",
                       r"even on (?:a |one |the )?(?:single|small|tiny|one)? ?(?:batch|sample|example|subset)",
                       r"even (?:on|with) (?:the )?train(?:ing)? (?:set|data)"),
    "overfits_batch": (r"(?<!n't )(?<!not )(?<!cannot )(?:can|does|it) (?:over-?fit|memori[sz]e) (?:a|one|the|a single) (?:small |tiny |single )?batch",),
    "flat_from_start": (rf"(?:{_STUCK})\w*\s+(?:\w+\s+){{0,4}}?(?:from the (?:start|beginning|first)|at all|since (?:the )?(?:start|beginning|epoch 1))",
                        rf"(?:from the (?:start|beginning)|from (?:epoch|step|iteration) (?:0|1)\b)\s+(?:\w+\s+){{0,4}}?(?:{_STUCK})",
                        r"(?:isn'?t|not|doesn'?t|does not|is not) (?:learning|training) (?:at all|anything)",
                        r"doesn'?t learn anything|not learning anything|learns nothing|nothing is learn",
                        r"weights? (?:are |is )?(?:not|never|don'?t|doesn'?t|didn'?t) (?:chang|updat|mov)",
                        rf"{_LOSS}\s+{_GAP}{{0,3}}?(?:{_STUCK})"),
    "plateau": (rf"{_LOSS}\s+{_GAP}{{0,3}}?(?:{_STUCK})", rf"(?:then|after (?:a few|some|that|\d+)) \w*\s*(?:\w+\s+){{0,3}}?(?:{_STUCK})",
                r"plateau", r"stops? (?:decreasing|improving|learning|going down)"),
    "plateau_at_chance": (r"\b(?:2\.30|2\.302\d*|2\.3\b|0\.69\d*|0\.693|1\.09\d*|1\.38\d*|1\.60\d*|4\.60\d*|6\.90\d*)",
                          r"random (?:guess\w*|chance)|chance level|\bchance\b|coin flip|\b(?:10|50|33|25|20) ?%? ?(?:accuracy|acc)\b"
                          r"|(?:accuracy|acc)\s+(?:\w+\s+){0,3}?(?:10|50|33|25|20) ?%|1 ?/ ?(?:num_classes|k|n_classes)"),
    "explodes": (rf"(?<!val )(?<!validation )(?<!test )(?<!eval )(?<!dev ){_LOSS}\s+(?:\w+\s+){{0,4}}?(?:explod|blow\w* up|blew up|diverg|skyrocket|shoots? up|(?:increas|goes up|going up|went up|rises|rising|grows)(?!\w*\s+(?:with|when|as|if|for)\b))",
                 r"explod\w+|diverg\w+|blow\w* up|blew up"),
    "spike_fast_recovery": (r"spik\w*\s+(?:\w+\s+){0,6}?(?:recover|comes? back|goes? back|return)", r"occasional spikes?|periodic spikes?|spikes? every"),
    "spike_slow_recovery": (r"spik\w*\s+(?:\w+\s+){0,6}?(?:slowly|takes? (?:a while|long|many))", r"\bspik\w+|sudden (?:jump|increase)"),
    "spike_no_recovery": (r"(?:never|doesn'?t|does not|didn'?t|won'?t) recover|stays? (?:high|up) after|jumps? (?:up )?and stays",),
    "oscillates": (r"oscillat|fluctuat|up and down|bounc\w* around|zig-?zag|jumps? around|all over the place|erratic|very noisy",),
    "train_val_gap": (r"(?:val\w*|test\w*|dev|eval\w*) (?:loss|error)\s+(?:\w+\s+){0,4}?(?:much |way )?(?:higher|worse|increas\w*|goes up|going up"
                      r"|rises|rising|doesn'?t (?:decrease|improve|go down)|stays|stuck)",
                      r"(?:val\w*|test\w*|dev|eval\w*) (?:acc\w*|score|f1|auc|performance|results?|metrics?|predictions?|set)\s+(?:\w+\s+){0,4}?"
                      r"(?:much |way |far |significantly |a lot )?(?:lower|below|worse|poor|bad|terrible|low|doesn'?t improve|stays|stuck|drops?)",
                      r"(?:train\w*)\s+(?:\w+\s+){0,4}?(?:good|great|high|9\d(?:\.\d+)?|100|decreas\w*|goes down) ?%?,?\s+(?:\w+\s+){0,4}?(?:but|while|whereas)\s+"
                      r"(?:\w+\s+){0,2}?(?:val\w*|test\w*|dev|eval\w*)",
                      r"overfit\w*", r"\bgeneraliz\w*|\bgeneralis\w*", r"(?:works?|good|fine) on (?:the )?train\w*\s+(?:\w+\s+){0,3}?(?:but|not)"),
    "val_too_good": (r"(?:val\w*|test\w*)[^.]{0,80}?(?:better|higher acc\w*|lower loss|lower error|outperform\w*)[^.]{0,40}?than (?:\w+ )?train",
                     r"train\w*[^.]{0,60}?(?:worse|lower acc\w*|higher loss|higher error) than (?:\w+ )?(?:val|test)",
                     r"(?:val\w*|test\w*) (?:loss|error)\s+(?:\w+\s+){0,3}?(?:lower|smaller|less|better) than (?:the )?train",
                     r"(?:val\w*|test\w*) (?:acc\w*|score|f1|auc|performance)\s+(?:\w+\s+){0,3}?(?:higher|better|greater) than (?:the )?train",
                     r"too good to be true|suspicious\w*|(?:100|99\.\d) ?%|near(?:ly)? perfect|perfect (?:accuracy|score)"),
    "loss_metric_mismatch": (rf"{_LOSS}\s+(?:\w+\s+){{0,4}}?(?:decreas\w*|goes down|improv\w*|drops?|fine|ok)\s*,?\s+(?:\w+\s+){{0,2}}?(?:but|while|yet)\s+(?:\w+\s+){{0,3}}?"
                              r"(?:accuracy|acc|metric|f1|auc|score|iou|bleu|map|predictions?)",
                              r"(?:accuracy|metric|f1|auc|score)\s+(?:\w+\s+){0,4}?(?:stays?|stuck|doesn'?t (?:change|improve)|not (?:changing|improving))\s+(?:\w+\s+){0,4}?(?:while|but|although|even though)\s+(?:\w+\s+){0,2}?loss"),
    "constant_outputs": (r"always predict\w*|predicts? (?:only|the same|just one|one class|all)|same (?:class|output|prediction|label|value|result|embedding|representation|feature vector)s?\b"
                         r"|all (?:the )?(?:predictions|outputs) (?:are|were) (?:the same|zero|identical|equal)|identical (?:outputs|predictions)"
                         r"|outputs? (?:a )?constant|(?:mean|average) (?:value|target)|only (?:one|a single) class|all zeros?\b|all ones\b",),
    "slow_healthy": (r"\bslow(?:ly)?\b|takes? (?:forever|ages|too long)|converges? slowly|could be (?:better|faster)",),
    "seed_variance": (r"\bseeds?\b|run to run|between runs|different runs|every (?:time|run)|each (?:time|run)|non-?determinis\w*|not reproducible|can'?t reproduce|inconsistent results",),
    "multi_gpu_only": (r"multi-?gpu|multiple gpus|\bddp\b|distributed|multi-?node|dataparallel|data parallel|\bfsdp\b|deepspeed|(?:2|4|8) gpus|single gpu",),
    "weights_load_clean": (r"strict\s*=\s*true|all keys matched successfully",
                           r"(?:no|0|zero) missing (?:or unexpected |and unexpected |or extra )?keys"
                           r"|missing(?:_| )keys:? (?:0\b|\[\]|none)"),
    "bad_after_export": (r"(?:inference|deploy\w*|export\w*|onnx|torchscript|llama\.cpp|ollama|gguf|vllm|production|serving|after (?:saving|loading))",),
    "worse_after_change": (r"after (?:i |we )?(?:changed|updated|upgraded|switched|moved|added|refactor\w*)|since (?:i |we )?(?:changed|updated|upgraded|switched)"
                           r"|used to work|was working|worked (?:fine )?before|stopped working|new version|upgrad\w*"
                           r"|downgrad\w*|roll(?:ing|ed)? back|(?:older|newer|latest|previous|earlier) (?:version|release)",
                           # two versions of one library side by side: "torch 1.10 ... than on torch 1.11", "4.29.2 vs 4.30.0"
                           rf"\b{_LIBRARY}\s*(?:==|=|v)?\s*\d+\.\d+[\w.]*[^\n]{{0,120}}?\b(?:{_LIBRARY}\s*(?:==|=|v)?\s*\d+\.\d+|version\s*\d+\.\d+|v?\d+\.\d+\.\d+)"),
    "memory_growth": (r"out of memory|\boom\b|memory (?:leak|grows|keeps|increas\w*|usage (?:grows|increas\w*|keeps))|cuda out of memory|ram (?:usage )?(?:grows|increas\w*)",),
    "gradients_vanish": (r"grad\w* (?:are |is |become |becomes )?(?:none|zero|0\b|tiny|very small|vanish\w*)|vanishing|no grad\w*|\.grad is none",),
    "gradients_explode": (r"grad\w* (?:norm )?(?:are |is )?(?:huge|large|explod\w*|very big|very large)|exploding grad",),
    "bad_generation": (r"gibberish|garbage|nonsense|repeat\w*|repetit\w*|never stops?|doesn'?t stop|keeps? generating|endless\w*|ramble\w*|same token",),
    "reward_flat": (r"(?:reward|return|score)s?\s+(?:\w+\s+){0,4}?(?:" + _STUCK + r"|doesn'?t (?:increase|improve|go up)|not (?:increasing|improving))",
                    r"agent (?:doesn'?t|does not|isn'?t|is not|never) (?:learn|improv)"),
}

# Compiled on first use, and only for a text that holds one of the pattern's needles (needles.py).
_COMPILED = {key: tuple(LazyPattern(p) for p in patterns) for key, patterns in PATTERNS.items()}

# Observations people deny as often as they report them ("there's no NaN either", "it doesn't crash"). Keys whose
# patterns carry their own negation (cannot_overfit, flat_from_start, spike_no_recovery) or whose negation still
# reports them ("not generalising" is a gap) are not here.
NEGATABLE = frozenset({"crash", "nan", "explodes", "spike_fast_recovery", "spike_slow_recovery", "oscillates",
                       "memory_growth", "gradients_explode", "bad_generation"})
_CLAUSE_END = re.compile(r"[.,;:!?()\n]|\b(?:but|while|although|though|however|whereas|yet)\b")
_DENIAL = re.compile(r"\b(?:no|not|never|without|nor|neither|none|nothing|zero)\b|n't\b")
DENIAL_WORDS = 3  # a denial this many words before the observed word, in the same clause, denies it


def _unmarked(text: str) -> str:
    # Markdown marks split phrases the patterns look for: "trained on 4 `gpus`", "**always** predicts".
    unmarked = re.sub(r"`+|\*\*|__", "", text.replace("\u2019", "'"))
    return " ".join(unmarked.lower().split())


def _denied(lowered: str, match: re.Match[str]) -> bool:
    """Whether a denial stands just before the match's last word, in its clause ("no nan", "loss doesn't explode")."""
    last_word = match.start() + max(match.group().rstrip().rfind(" ") + 1, 0)
    clause = _CLAUSE_END.split(lowered[:last_word])[-1]
    return bool(_DENIAL.search(" ".join(clause.split()[-DENIAL_WORDS:])))


_THEORY = re.compile(r"\b(?:looks? like|seems? like|sounds? like|i (?:think|guess|suspect|believe)|my (?:guess|theory)"
                     r"|could (?:it|this) be|is (?:it|this)|maybe|perhaps|probably|suspect)\b")


def _theorised(lowered: str, match: re.Match[str]) -> bool:
    """Whether the match is the user's guess at a cause ("it looks like exploding gradients to me"), not what
    they saw: a guess marker earlier in the same clause."""
    return bool(_THEORY.search(_CLAUSE_END.split(lowered[:match.start()])[-1]))


# A chance-level loss is a cross-entropy: 1.61 or 2.30 printed after an RMSE, an MAE, a learning rate or a time is
# another quantity that happens to share the digits ("rmse_k 2.3039", "mae_k 1.6127").
_OTHER_QUANTITY = re.compile(r"(?:r?mse|mae|mape|rmsle|r2|r²|auc|f1|lr|learning[ _]rate|grad(?:ient)?[ _]norm|norm|time"
                             r"|secs?|seconds|ms|kwh|mw|kw|temp\w*)[\w]*\W{0,3}$")


def _another_quantity(key: str, lowered: str, match: re.Match[str]) -> bool:
    return key == "plateau_at_chance" and match.group()[:1].isdigit() \
        and bool(_OTHER_QUANTITY.search(lowered[max(0, match.start() - 24):match.start()]))


def read_stances(text: str) -> tuple[list[str], list[str]]:
    """(observation keys the text reports, keys it only denies), each in vocabulary order. A key is reported
    when one mention of it is not denied; denied when every mention is (NEGATABLE keys only). A mention inside
    the user's own guess at the cause counts for neither."""
    lowered = _unmarked(text)
    reported, denied = [], []
    for key, patterns in _COMPILED.items():
        matches = [m for p in patterns for m in p.finditer(lowered)
                   if not _theorised(lowered, m) and not _another_quantity(key, lowered, m)]
        if not matches:
            continue
        if key in NEGATABLE and all(_denied(lowered, m) for m in matches):
            denied.append(key)
        else:
            reported.append(key)
    return reported, denied


def contradicts(reported: tuple[list[str], list[str]] | tuple[tuple[str, ...], tuple[str, ...]],
                other: tuple[list[str], list[str]] | tuple[tuple[str, ...], tuple[str, ...]]) -> bool:
    """Whether two texts disagree on an observation: one reports what the other denies."""
    return bool(set(reported[0]) & set(other[1]) or set(reported[1]) & set(other[0]))


def read_observations(text: str) -> list[str]:
    """The observation keys a description reports (a denied one, "no NaN", is not), in vocabulary order."""
    return read_stances(text)[0]
