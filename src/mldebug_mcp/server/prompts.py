"""The server's instructions and prompts: the bug-first loop, spelled out with the tool calls."""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from pydantic import Field

INSTRUCTIONS = (
    "mldebug helps debug ML training the way experienced practitioners do. Assume the training code has a "
    "bug; collect cheap clues before theorising; hold at least three different hypotheses (a likely one, a "
    "subtle one such as leakage or seed variance, and the null); run the cheapest test whose outcome they "
    "disagree on; change one thing at a time. Start with read_reference(document='skill') for the loop, "
    "then read_reference on the playbook or a reference sheet section as needed. triage ranks hypotheses for "
    "a symptom in the user's words, analyze_curve reads a loss log, lint and diagnose test the code, and "
    "check_advice flags anti-patterns in a fix before you propose it. Use quote to cite the practitioner "
    "behind a claim. Do not propose hyperparameter changes before the cheap checks pass."
)


def debug_training(
    symptom: Annotated[str, Field(description="What goes wrong, in your words.", min_length=3, max_length=2000)],
    context: Annotated[str, Field(description="Model, data, what changed recently.", max_length=4000)] = "",
) -> str:
    extra = f"\nWhat else is known: {context.strip()}\n" if context.strip() else ""
    return f"""Training problem reported: {symptom.strip()}
{extra}
Debug this with the bug-first loop. Do not suggest changing the learning rate, the optimiser, the
schedule or the model size until the checks below have run.

1. Calibrate: read_reference(document="skill", section="Calibrate yourself first").
2. Collect clues before theorising: read the full traceback and logs; read the training code around the
   loss, the optimiser step, the data loading and the train/eval switches. Note observations apart from
   interpretations.
3. Hypotheses: write at least three genuinely different explanations, each with a rough prior. Start from
   triage(symptom="<the report in the user's words, with any code and log lines>"); if a loss log exists,
   analyze_curve(path=...) first and pass its observations to triage. Keep, or replace with better ones:
   - the likely one (consult read_reference(document="playbook", section="Symptoms and likely causes")),
   - a subtle one (leakage, a confound in the data, too few samples, seed variance, a stale cache),
   - the null (noise, or another change made at the same time).
   For each, predict what the cheap checks would show if it were true.
4. Pick the cheapest test whose predictions differ across the hypotheses. The usual order is: print one
   batch as the model sees it; loss at initialisation against ln(number of classes); overfit one small
   batch; gradient flow per layer. How to run each: read_reference(document="diagnostics", section=...).
5. Walk the triage tree if unsure where to start: triage_step(answers={{}}) asks one cheap question at a time.
6. Fix only what an observation pointed to; run check_advice(text=<your proposed fix>) before proposing it;
   then confirm the symptom is gone and the checks still pass.
   If two cycles fail to localise the bug, compare against a trusted working implementation.
7. Back each recommendation with its source: quote(claim="...") returns the verbatim evidence.
"""


def review_training_code(
    code_or_path: Annotated[str, Field(description="A file path or the code itself.", min_length=1, max_length=100_000)],
    focus: Annotated[str, Field(description="Optional area to focus on.", max_length=500)] = "",
) -> str:
    extra = f"\nFocus on: {focus.strip()}\n" if focus.strip() else ""
    return f"""Review this training code for silent bugs: {code_or_path.strip()}
{extra}
Silent bugs run without errors and make the model somewhat worse. Read the code and check, citing file
and line for each finding:

- Loss inputs: softmax or sigmoid outputs fed to losses that expect logits; NLLLoss without log_softmax;
  target dtype and shape; (N,1) predictions against (N,) targets.
- Optimiser loop: zero_grad, backward, step in that order; scheduler after the optimiser; gradient
  accumulation divides the loss; the optimiser holds the parameters that should train.
- Modes: eval() and torch.no_grad() for evaluation, train() restored afterwards.
- Autograd breakers on the loss path: .detach(), .item(), .numpy(), .data, torch.tensor(tensor).
- Shapes: view or reshape used where transpose or permute was meant; squeeze() without a dim.
- Data: shuffling of the training loader; preprocessing fitted before the train/test split; per-worker
  random seeds; DistributedSampler.set_epoch.
- Numerics: log of softmax or of unclamped values; division by a std without epsilon; fp16 without a
  gradient scaler.

The full catalogue with bad and fixed code: read_reference(document="static-analysis"). For each
finding give the fix and the runtime check that would confirm it
(read_reference(document="diagnostics")). Do not suggest hyperparameter changes in a code review.
"""


def design_sweep(
    question: Annotated[str, Field(description="The question the sweep must answer.", min_length=3, max_length=2000)],
    factors: Annotated[str, Field(description="Candidate factors to vary.", max_length=2000)] = "",
) -> str:
    extra = f"\nCandidate factors: {factors.strip()}\n" if factors.strip() else ""
    return f"""Design an experiment sweep to answer: {question.strip()}
{extra}
Write the plan before any run:

1. The single question and the hypothesis, with what result would refute it.
2. Scientific, nuisance and fixed hyperparameters: the nuisance ones (often the learning rate) are tuned
   separately for each arm, or the comparison is unfair. See read_reference(document="sweeps",
   section="Scientific, nuisance and fixed hyperparameters").
3. Vary one factor per sweep; list what else could change between arms and hold it fixed.
4. Seeds: the same seeds for every arm (paired comparison), at least 4 if the effect may be small; compute
   within-seed z-scores and the cross-seed t-statistic (read_reference(document="sweeps",
   section="The cross-seed t-statistic")).
5. Run count, cost estimate, and the order to run in (cheapest informative arm first).
6. What you will report: effect size with its spread across seeds, not one best run.

Cite the reasons with quote(search="random seeds") or quote(key="tuning-playbook").
"""


def register(server: MCPServer) -> None:
    server.prompt(name="debug-training", title="Debug a training problem",
                  description="A symptom in; the bug-first loop with the right tool calls out.")(debug_training)
    server.prompt(name="review-training-code", title="Review training code for silent bugs",
                  description="Checklist review of training code for bugs that run without errors.")(review_training_code)
    server.prompt(name="design-sweep", title="Design an experiment sweep",
                  description="Plan a sweep that can tell a real effect from seed noise.")(design_sweep)
