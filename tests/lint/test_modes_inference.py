"""MLD020 on inference code whose model is not named like one or not run in this file: an embedder
script, a deployment wrapper class, and a model loaded in one file and handed to another file's
evaluation function (project facts). Each with its fixed twin, which must stay quiet."""

import textwrap

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_paths, lint_source

from .families import project_findings


def _lines(source: str, path: str, code: str = "MLD020") -> list[int]:
    found = lint_source(textwrap.dedent(source), path, LintSettings(select=(code,)))
    return [f.line for f in found if f.code == code]


def _run(tmp_path, files: dict[str, str]) -> list[tuple[str, int]]:
    return project_findings(tmp_path, files, "MLD020")


# an encoder taken out of a loaded bundle, moved to the GPU and run over text batches under no_grad: it is
# called and moved, so a module, whatever its name
EMBED_SCRIPT = """
    import numpy as np
    import torch
    from project.loading import load_bundle

    bundle = load_bundle(args.bundle_path)
    encoder_fn = bundle["encoder"].cpu()
    if args.cuda:
        encoder_fn = encoder_fn.cuda()
    {fix}
    rows = []
    for chunk in chunks(lines, 32):
        with torch.no_grad():
            ids = torch.tensor(np.stack([tokenize(l) for l in chunk]))
            vectors = encoder_fn(ids)
            rows += vectors.mean(1).cpu().numpy().tolist()
    np.save(args.output, rows)
"""

# a deployment wrapper: the model is loaded by a method of the class and run by another
DEPLOYED = """
    import torch
    from project.models import Model

    class Deployed:
        def __init__(self, config, weights, device="cpu"):
            self.model = self._load(config, weights)
            self.model.to(device)
            {fix}

        def _load(self, config, weights):
            model = Model.from_config(config)
            model.load_state_dict(torch.load(weights, weights_only=True))
            return model

        def _inference(self, batch):
            out = self.model(batch)
            return out.detach().cpu().numpy()
"""

# a helper handed its network by the caller, not named for evaluation: the caller decides the mode
HANDED_IN = """
    import torch

    @torch.no_grad()
    def encode(network, batch):
        codes = network(batch["pixels"])
        return codes.cpu()
"""


def test_a_called_and_moved_bundle_entry_is_a_model():
    assert _lines(EMBED_SCRIPT.format(fix=""), "encode_text.py") == [9]  # after the last move
    assert _lines(EMBED_SCRIPT.format(fix="encoder_fn.eval()"), "encode_text.py") == []


def test_a_deployment_wrapper_is_flagged_where_its_model_is_set_up():
    assert _lines(DEPLOYED.format(fix=""), "deploy.py") == [8]
    assert _lines(DEPLOYED.format(fix="self.model.eval()"), "deploy.py") == []


def test_a_model_handed_to_a_predictor_is_the_callers_business():
    assert _lines(HANDED_IN, "codes.py") == []


CLI = """
    import torch
    from bench.loaders import load_backbone
    from bench.metrics import classification

    def run(args):
        model, preprocess = load_backbone(
            args.arch,
            pretrained=args.weights,
        )
        {fix}
        loader = torch.utils.data.DataLoader(make_dataset(args, preprocess), batch_size=64)
        return classification.evaluate(model, loader, device=args.device)
"""

METRICS = """
    import torch

    def evaluate(model, dataloader, device):
        {fix}
        correct = 0
        with torch.no_grad():
            for images, labels in dataloader:
                correct += (model(images.to(device)).argmax(1) == labels).sum().item()
        return correct
"""


def test_a_model_handed_to_another_files_evaluation_that_never_switches(tmp_path):
    found = _run(tmp_path, {"cli.py": CLI.format(fix=""), "bench/metrics/classification.py": METRICS.format(fix="")})
    assert ("cli.py", 10) in found  # below the multi-line load, where model.eval() goes
    assert ("classification.py", 6) in found  # and the top of the evaluation function, run on a model handed in


def test_the_handoff_is_quiet_when_either_side_switches(tmp_path):
    quiet_cli = _run(tmp_path / "a", {"cli.py": CLI.format(fix="model.eval()"),
                                      "bench/metrics/classification.py": METRICS.format(fix="")})
    assert ("cli.py", 10) not in quiet_cli
    assert _run(tmp_path / "b", {"cli.py": CLI.format(fix=""),
                                 "bench/metrics/classification.py": METRICS.format(fix="model.eval()")}) == []


def test_the_handoff_is_quiet_when_the_evaluation_function_is_not_in_the_run(tmp_path):
    assert _run(tmp_path, {"cli.py": CLI.format(fix="")}) == []


WORKER = """
    import torch
    from .checkpoints import restore
    from .decoding import next_token

    def worker(path, prompts, device):
        net = restore(path)
        net = net.to(device)
        {fix}
        return [next_token(net, p.to(device)) for p in prompts]
"""

CHECKPOINTS = """
    import torch
    from .models import Decoder

    def restore(path):
        state = torch.load(path, weights_only=True)
        net = Decoder(state["config"])
        net.load_state_dict(state["weights"])
        return net
"""

DECODING = """
    import torch

    @torch.inference_mode()
    def next_token(net, tokens):
        logits = net(tokens)[:, -1]
        return logits.argmax(-1)
"""


def test_a_model_handed_to_another_files_inference_step_is_flagged_below_its_setup(tmp_path):
    files = {"pkg/worker.py": WORKER.format(fix=""), "pkg/checkpoints.py": CHECKPOINTS, "pkg/decoding.py": DECODING}
    assert ("worker.py", 8) in _run(tmp_path, files)
    fixed = {**files, "pkg/worker.py": WORKER.format(fix="net.eval()")}
    assert ("worker.py", 8) not in _run(tmp_path / "fixed", fixed)


def test_a_loader_of_the_run_that_switches_to_eval_keeps_the_handoff_quiet(tmp_path):
    restoring_eval = CHECKPOINTS.replace("        return net", "        return net.eval()")
    files = {"pkg/worker.py": WORKER.format(fix=""), "pkg/checkpoints.py": restoring_eval, "pkg/decoding.py": DECODING}
    assert [f for f in _run(tmp_path, files) if f[0] == "worker.py"] == []


LOSS_ESTIMATE = """
    import torch

    @torch.no_grad()
    def estimate(model, batches):
        return sum(model(x, y).item() for x, y in batches) / len(batches)
"""

TRAIN = """
    import torch
    from .estimates import estimate

    def fit(model, optimizer, batches, val_batches, every):
        for step, (x, y) in enumerate(batches):
            if step % every == 0:
                {fix}
                score = estimate(model, val_batches)
            model(x, y).backward()
            optimizer.step()
            optimizer.zero_grad()
"""


def test_a_periodic_estimate_in_another_file_is_flagged_at_the_call(tmp_path):
    found = _run(tmp_path, {"pkg/train.py": TRAIN.format(fix="pass"), "pkg/estimates.py": LOSS_ESTIMATE})
    assert ("train.py", 9) in found
    fixed = _run(tmp_path / "fixed", {"pkg/train.py": TRAIN.format(fix="model.eval()"),
                                      "pkg/estimates.py": LOSS_ESTIMATE})
    assert ("train.py", 9) not in fixed


def test_an_evaluation_that_hands_the_model_on_to_a_third_file_is_not_judged(tmp_path):
    relay = """
        import torch
        from harness.engine import run_eval

        def evaluate(model, dataloader, device):
            return run_eval(model, dataloader, device)
    """
    assert _run(tmp_path, {"cli.py": CLI.format(fix=""), "bench/metrics/classification.py": relay}) == []


VALIDATION = """
    import torch

    def validate(model, val_loader):
        model.eval()
        with torch.no_grad():
            return sum((model(x).argmax(1) == y).sum().item() for x, y in val_loader)

    def train_one_epoch(model, loader, optimizer):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
"""

MID_EPOCH = """
    import torch
    from utils import validate, train_one_epoch

    def fit(model, optimizer, train_loader, val_loader, every):
        model.train()
        for step, (x, y) in enumerate(train_loader):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            if step % every == 0:
                print(validate(model, val_loader))

    def fit_by_epochs(model, optimizer, train_loader, val_loader):
        for epoch in range(10):
            train_one_epoch(model, train_loader, optimizer)
            print(validate(model, val_loader))
"""


def test_another_files_validate_left_in_eval_mid_epoch_is_mld021(tmp_path):
    for name, body in {"utils.py": VALIDATION, "train.py": MID_EPOCH}.items():
        (tmp_path / name).write_text(textwrap.dedent(body))
    report = lint_paths([tmp_path], LintSettings(select=("MLD021",)))
    # fit() never trains again after validate(); fit_by_epochs() does, through train_one_epoch() of utils.py
    # the model.train() right before the loop belongs at the top of each iteration
    assert [(f.path.rsplit("/", 1)[-1], f.line) for f in report.findings] == [("train.py", 8)]


def test_losses_moved_to_the_device_are_not_models():
    source = """
        import torch
        import torch.nn as nn

        crit = nn.CrossEntropyLoss().cuda()
        scorer = nn.MSELoss().to("cuda")
        model = torch.load("m.pt", weights_only=False)

        def run_test(test_loader):
            total = 0.0
            with torch.no_grad():
                for x, y in test_loader:
                    out = model(x)
                    total += crit(out, y).item() + scorer(out, y).item()
            return total
    """
    found = lint_source(textwrap.dedent(source), "evaluate.py", LintSettings(select=("MLD020",)))
    assert [f.message.split(" ")[0] for f in found] == ["model"]


# a GAN script builds the metric network at module level under __main__ and its evaluate() hands it to
# another file's function that runs it under no_grad for activations: eval() goes right after the setup
GAN_SCRIPT = """
    import torch
    from torch import nn
    from metrics.stats import fake_activations

    def evaluate(step):
        acts = fake_activations(inception, generator, step)
        return acts.mean()

    if __name__ == "__main__":
        generator = make_generator().eval()
        inception = nn.DataParallel(build_inception()).cuda()
        {fix}
        for step in range(10):
            print(evaluate(step))
"""
STATS = """
    import torch

    def fake_activations(inception, generator, step, n=64):
        acts = []
        with torch.no_grad():
            for _ in range(n):
                acts.append(inception(generator(torch.randn(1, 128)))[0].cpu())
        return torch.cat(acts)
"""


def test_a_global_metric_network_handed_to_another_files_inference(tmp_path):
    found = _run(tmp_path, {"gan.py": GAN_SCRIPT.format(fix=""), "metrics/stats.py": STATS})
    assert found == [("gan.py", 12)]  # at the module-level setup: eval() goes right below it
    assert _run(tmp_path, {"gan.py": GAN_SCRIPT.format(fix="inception.eval()"), "metrics/stats.py": STATS}) == []


# generation scripts: a sampler feeds the model's output back as its next input under no_grad, on a model
# the script loads and never switches (nothing in the file trains or switches a mode)
SAMPLER = """
    import torch

    def denoise(model, x, labels, steps=50):
        model = model.to("cuda")
        {fix}
        with torch.no_grad():
            for t in reversed(range(steps)):
                noise = model(x, torch.full((x.size(0),), t), labels)
                x_mean = x - noise / steps
                x = x_mean + 0.01 * torch.randn_like(x) if t else x_mean
        return x

    def decode(model, tokens, n):
        with torch.no_grad():
            for _ in range(n):
                logits = model(tokens)
                tokens = torch.cat([tokens, logits[:, -1:].argmax(-1)], dim=1)
        return tokens

    def embed_all(encoder, batches):
        with torch.no_grad():
            return [encoder(b) for b in batches]

    if __name__ == "__main__":
        net = torch.load("model.pt", weights_only=False)
        images = denoise(net, torch.randn(8, 1, 32, 32), torch.arange(8))
        lm = torch.load("lm.pt", weights_only=False)
        print(decode(lm, torch.zeros(1, 1, dtype=torch.long), 20))
"""


def test_a_sampler_feeding_outputs_back_on_a_model_the_script_loads():
    # denoise: after the model is moved; decode: at its top; embed_all (no feedback): the caller's business
    assert _lines(SAMPLER.format(fix=""), "run_diffusion.py") == [5, 15]
    # a library helper nobody in the file calls with a loaded model: the caller decides the mode
    library = SAMPLER.format(fix="").split("    if __name__")[0]
    assert _lines(library, "diffusion_utils.py") == []
    assert _lines(SAMPLER.format(fix="model.eval()").replace(
        'print(decode(lm,', 'print(decode(lm.eval(),'), "run_diffusion.py") == []


# inference scripts and functions of the family: a test script over a loader, a service function running a
# module-level model, a sampling script; their fixed twins (a model built with .eval() chained and run under
# inference_mode, a from_pretrained model, in eval mode already) stay quiet
TEST_SCRIPT = """
    import torch
    from model import ResNetClassifier

    net = ResNetClassifier(num_classes=10)
    net.load_state_dict(torch.load("best.pt")["state_dict"])
    net = net.cuda()
    correct = 0
    for images, labels in test_loader:
        correct += (net(images.cuda()).argmax(1).cpu() == labels).sum().item()
"""
SERVICE = """
    import torch
    from nets import UNet

    segmenter = UNet(3, 2){chain}
    segmenter.load_state_dict(torch.load("unet.pth"))

    @torch.inference_mode()
    def segment(img):
        return segmenter(img).argmax(1).numpy()
"""
SAMPLE_SCRIPT = """
    import torch
    from gpt import GPT, GPTConfig

    checkpoint = torch.load("ckpt.pt")
    gpt = GPT(GPTConfig(**checkpoint["model_args"]))
    gpt.load_state_dict(checkpoint["model"])
    gpt.to("cuda")
    with torch.no_grad():
        print(gpt.generate(torch.zeros((1, 1), dtype=torch.long), 200)[0].tolist())
"""
HF_SERVICE = """
    import torch
    from transformers import AutoModelForSequenceClassification

    clf = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")

    def predict(batch):
        with torch.no_grad():
            return clf(**batch).logits.argmax(-1)
"""


def test_inference_scripts_and_functions_of_the_family():
    assert _lines(TEST_SCRIPT, "test.py") == [7]  # after the model is set up (moved)
    assert _lines(SERVICE.format(chain=""), "app.py") == [6]  # after the module-level load
    assert _lines(SERVICE.format(chain=".eval()"), "app.py") == []
    assert _lines(SAMPLE_SCRIPT, "sample.py") == [8]
    assert _lines(SAMPLE_SCRIPT.replace('gpt.to("cuda")', 'gpt.to("cuda").eval()'), "sample.py") == []
    assert _lines(HF_SERVICE, "serve.py") == []


# a global model the script trains and then tests: eval() belongs at the top of test(), not at its setup
TRAIN_THEN_TEST = """
    import torch
    import torch.nn as nn

    model = nn.Sequential(nn.Linear(10, 64), nn.Dropout(0.5), nn.Linear(64, 2))
    opt = torch.optim.Adam(model.parameters())

    def train(loader):
        model.train()
        for x, y in loader:
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()

    def test(loader):
        correct = 0
        with torch.no_grad():
            for x, y in loader:
                correct += (model(x).argmax(1) == y).sum().item()
        return correct
"""


def test_a_trained_global_is_switched_in_the_test_function():
    assert _lines(TRAIN_THEN_TEST, "main.py") == [16]  # correct = 0, the top of test()
    assert _lines(TRAIN_THEN_TEST.replace("correct = 0", "model.eval()\n        correct = 0"), "main.py") == []
