"""Blind-written variants, round 3 (F13): preprocessors built by a helper or as a pipeline (MLD051), and the
MAE-style loop that hands its loss and the accumulation test to a scaler helper (MLD014). Shapes of our own."""
from pathlib import Path

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_paths

from .families import line_of, project_findings

PREP_HELPERS = """
    from sklearn.compose import ColumnTransformer
    from sklearn.preprocessing import OneHotEncoder, StandardScaler


    def build_scaler(numeric, categorical):
        return ColumnTransformer([("num", StandardScaler(), numeric), ("cat", OneHotEncoder(), categorical)])
"""

PREP_SCRIPT = """
    import pandas as pd
    from sklearn.model_selection import train_test_split

    from prep import build_scaler


    def load(path, numeric, categorical):
        frame = pd.read_csv(path)
        columns = build_scaler(numeric, categorical)
        features = columns.fit_transform(frame[numeric + categorical])
        return train_test_split(features, frame["label"].values, test_size=0.25)
"""

PREP_SCRIPT_SPLIT_FIRST = """
    import pandas as pd
    from sklearn.model_selection import train_test_split

    from prep import build_scaler


    def load(path, numeric, categorical):
        frame = pd.read_csv(path)
        train, test = train_test_split(frame, test_size=0.25)
        columns = build_scaler(numeric, categorical)
        x_train = columns.fit_transform(train[numeric + categorical])
        return x_train, columns.transform(test[numeric + categorical])
"""

LOCAL_PIPELINE = """
    from sklearn.decomposition import PCA
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler


    def reducer(k):
        return make_pipeline(StandardScaler(), PCA(k))


    def prepare(X, y):
        steps = reducer(8)
        Z = steps.fit_transform(X)
        return train_test_split(Z, y, test_size=0.2)
"""

# a model's builder is not a preprocessor: fitting a model and then splitting is another matter
MODEL_BUILDER = """
    from sklearn.model_selection import train_test_split

    from models import build_forest


    def prepare(X, y):
        forest = build_forest()
        forest.fit(X, y)
        return train_test_split(X, y, test_size=0.2)
"""


def test_a_preprocessor_built_by_a_helper_of_another_file_and_fitted_before_the_split(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"prep.py": PREP_HELPERS, "load.py": PREP_SCRIPT}, "MLD051")
    assert found == [("load.py", line_of(PREP_SCRIPT, "columns.fit_transform"))]


def test_the_helpers_preprocessor_fitted_on_the_training_part_is_quiet(tmp_path: Path) -> None:
    assert project_findings(tmp_path, {"prep.py": PREP_HELPERS, "load.py": PREP_SCRIPT_SPLIT_FIRST}, "MLD051") == []


def test_a_pipeline_returned_by_a_local_function_and_fitted_before_the_split(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"prepare.py": LOCAL_PIPELINE}, "MLD051")
    assert found == [("prepare.py", line_of(LOCAL_PIPELINE, "steps.fit_transform"))]


def test_a_pipeline_fitted_on_the_training_part_is_quiet(tmp_path: Path) -> None:
    split_first = LOCAL_PIPELINE.replace(
        "        Z = steps.fit_transform(X)\n        return train_test_split(Z, y, test_size=0.2)\n",
        "        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)\n"
        "        return steps.fit_transform(X_train), steps.transform(X_test), y_train, y_test\n")
    assert split_first != LOCAL_PIPELINE
    assert project_findings(tmp_path, {"prepare.py": split_first}, "MLD051") == []


def test_a_model_from_a_builder_is_not_taken_for_a_preprocessor(tmp_path: Path) -> None:
    assert project_findings(tmp_path, {"prepare.py": MODEL_BUILDER}, "MLD051") == []


ENGINE = """
    import torch


    def train_one_epoch(model, criterion, loader, optimizer, loss_scaler, accum_steps):
        model.train()
        optimizer.zero_grad()
        for step, (images, labels) in enumerate(loader):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = criterion(model(images), labels)
            loss_scaler(loss, optimizer, parameters=model.parameters(),
                        update_grad=(step + 1) % accum_steps == 0)
            if (step + 1) % accum_steps == 0:
                optimizer.zero_grad()
"""

SCALER = """
    import torch


    class ScalerStep:
        def __init__(self):
            self.scaler = torch.amp.GradScaler("cpu")

        def __call__(self, loss, optimizer, parameters=None, update_grad=True):
            self.scaler.scale(loss).backward()
            if update_grad:
                self.scaler.step(optimizer)
                self.scaler.update()
"""


def test_a_loss_handed_undivided_to_a_scaler_helper_with_the_accumulation_test(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"engine.py": ENGINE, "scaling.py": SCALER}, "MLD014")
    assert found == [("engine.py", line_of(ENGINE, "loss_scaler(loss"))]


def test_the_loss_divided_before_the_hand_over_is_quiet(tmp_path: Path) -> None:
    divided = ENGINE.replace("            loss_scaler(loss,", "            loss = loss / accum_steps\n"
                                                              "            loss_scaler(loss,")
    assert divided != ENGINE
    assert project_findings(tmp_path, {"engine.py": divided, "scaling.py": SCALER}, "MLD014") == []


def test_a_helper_handed_the_count_itself_may_divide_and_is_quiet(tmp_path: Path) -> None:
    counted = ENGINE.replace("parameters=model.parameters(),", "parameters=model.parameters(), steps=accum_steps,")
    assert counted != ENGINE
    assert project_findings(tmp_path, {"engine.py": counted, "scaling.py": SCALER}, "MLD014") == []


HEADS = """
    import torch.nn as nn


    class SelfAttention(nn.Module):
        def __init__(self, width, heads):
            super().__init__()
            self.heads = heads
            self.project = nn.Linear(width, 3 * width)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.project(x).chunk(3, dim=-1)
            q = q.view(B, self.heads, T, C // self.heads)
            k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            return q, k, v
"""


def test_a_part_of_a_linear_output_cut_along_its_last_axis_keeps_its_axes(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"attention.py": HEADS}, "MLD040")
    assert found == [("attention.py", line_of(HEADS, "q = q.view(B, self.heads, T"))]


def test_parts_cut_along_another_axis_are_not_read_as_the_whole(tmp_path: Path) -> None:
    batch_cut = HEADS.replace(".chunk(3, dim=-1)", ".chunk(3, dim=0)")
    assert batch_cut != HEADS
    assert project_findings(tmp_path, {"attention.py": batch_cut}, "MLD040") == []


FORECASTER = """
    import torch
    import torch.nn as nn


    class Forecaster:
        def __init__(self, net, lr):
            self.net = net
            self.loss = nn.MSELoss()
            self.opt = torch.optim.Adam(net.parameters(), lr=lr)

        def fit_epoch(self, batches):
            self.net.train()
            for x, y in batches:
                self.opt.zero_grad()
                self.loss(self.net(x), y).backward()
                self.opt.step()

        @torch.no_grad()
        def forecast(self, window, steps):
            out = []
            for _ in range(steps):
                step = self.net(window)
                out.append(step)
                window = torch.cat([window[:, 1:], step.unsqueeze(1)], dim=1)
            return torch.stack(out, 1)
"""


def test_a_forecast_method_run_in_training_mode_after_fitting(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"forecaster.py": FORECASTER}, "MLD020")
    assert [name for name, _ in found] == ["forecaster.py"]


def test_a_forecast_method_that_switches_to_eval_is_quiet(tmp_path: Path) -> None:
    switched = FORECASTER.replace("            out = []\n", "            self.net.eval()\n            out = []\n")
    assert switched != FORECASTER
    assert project_findings(tmp_path, {"forecaster.py": switched}, "MLD020") == []


TILED = """
    import torch


    def tiled_inference(volume, tile, predictor):
        outs = [predictor(part) for part in volume.split(tile, dim=-1)]
        return torch.cat(outs, dim=-1)
"""

SCORE_SCRIPT = """
    import torch

    from nets import Segmenter
    from tiling import tiled_inference


    def main(paths, weights):
        net = Segmenter()
        net.load_state_dict(torch.load(weights))
        with torch.no_grad():
            for path in paths:
                logits = tiled_inference(torch.load(path), 64, net)
                print(path, logits.argmax(1).float().mean().item())


    if __name__ == "__main__":
        main(["a.pt"], "w.pt")
"""

NETS = """
    import torch.nn as nn


    class Segmenter(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv3d(1, 8, 3, padding=1), nn.BatchNorm3d(8), nn.ReLU(),
                                      nn.Dropout3d(0.2), nn.Conv3d(8, 2, 1))

        def forward(self, x):
            return self.body(x)
"""


def test_a_loaded_model_handed_to_an_inference_helper_with_autograd_off(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"tiling.py": TILED, "score.py": SCORE_SCRIPT, "nets.py": NETS}, "MLD020")
    assert [name for name, _ in found] == ["score.py"]


def test_the_same_hand_over_after_eval_is_quiet(tmp_path: Path) -> None:
    switched = SCORE_SCRIPT.replace("        with torch.no_grad():", "        net.eval()\n        with torch.no_grad():")
    assert switched != SCORE_SCRIPT
    assert project_findings(tmp_path, {"tiling.py": TILED, "score.py": switched, "nets.py": NETS}, "MLD020") == []


def test_a_helper_not_named_for_inference_is_not_taken_for_one(tmp_path: Path) -> None:
    renamed = {"tiling.py": TILED.replace("tiled_inference", "tiled_apply"),
               "score.py": SCORE_SCRIPT.replace("tiled_inference", "tiled_apply"), "nets.py": NETS}
    assert project_findings(tmp_path, renamed, "MLD020") == []



HEAD_ACTIVATION = """
    import torch

    from nets import build_segmenter


    def fit(loader, epochs, device):
        model = build_segmenter("unet", classes=1, activation="sigmoid").to(device)
        criterion = torch.nn.BCEWithLogitsLoss()
        opt = torch.optim.Adam(model.parameters(), 3e-4)
        for _ in range(epochs):
            for images, masks in loader:
                opt.zero_grad()
                criterion(model(images.to(device)), masks.to(device)).backward()
                opt.step()
"""

FACTORY = """
    import segmentation_models_pytorch as smp


    def build_segmenter(arch, **options):
        return smp.create_model(arch, encoder_weights=None, **options)
"""


def test_a_factory_model_moved_to_a_device_keeps_the_head_activation_it_was_built_with(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"fit.py": HEAD_ACTIVATION, "nets.py": FACTORY}, "MLD001")
    assert found == [("fit.py", line_of(HEAD_ACTIVATION, 'activation="sigmoid"'))]


def test_the_factory_model_without_a_head_activation_is_quiet(tmp_path: Path) -> None:
    plain = HEAD_ACTIVATION.replace('activation="sigmoid"', "activation=None")
    assert plain != HEAD_ACTIVATION
    assert project_findings(tmp_path, {"fit.py": plain, "nets.py": FACTORY}, "MLD001") == []



# a script that builds one of two library models, then moves it in its own reassignment: the construction is
# looked for through `.cuda()` (this once looped forever) and no head activation is given, so nothing is reported
CHOSEN_THEN_MOVED = """
    import sys

    import torch
    import torch.nn as nn
    from torchvision.models import resnet18, wide_resnet50_2

    if sys.argv[1] == "resnet18":
        cnn = resnet18(num_classes=10)
    else:
        cnn = wide_resnet50_2(num_classes=10)
    cnn = cnn.cuda()
    criterion = nn.CrossEntropyLoss().cuda()
    opt = torch.optim.SGD(cnn.parameters(), lr=0.1)
    for images, labels in []:
        opt.zero_grad()
        criterion(cnn(images.cuda()), labels.cuda()).backward()
        opt.step()
"""


def test_a_model_chosen_by_a_branch_and_moved_in_its_own_reassignment_is_quiet(tmp_path: Path) -> None:
    assert project_findings(tmp_path, {"train.py": CHOSEN_THEN_MOVED}, "MLD001") == []


DISTRIBUTIONAL_NET = """
    import torch.nn as nn
    import torch.nn.functional as F


    class AtomNet(nn.Module):
        def __init__(self, actions, atoms, quantile=False):
            super().__init__()
            self.actions, self.atoms, self.quantile = actions, atoms, quantile
            self.body = nn.Linear(8, 64)
            self.head = nn.Linear(64, actions * atoms)

        def forward(self, x):
            q = self.head(F.relu(self.body(x))).view(-1, self.actions, self.atoms)
            if not self.quantile:
                q = F.softmax(q, dim=2)
            return q
"""

DISTRIBUTIONAL_AGENT = """
    import torch

    from net import AtomNet


    class Agent:
        def __init__(self, actions, atoms):
            self.online = AtomNet(actions, atoms)
            self.opt = torch.optim.Adam(self.online.parameters(), 1e-4)

        def learn(self, states, actions, target_dist):
            dist = self.online(states)
            dist_a = dist[range(states.size(0)), actions]
            loss = -torch.sum(target_dist * dist_a.log(), 1).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
"""


def test_the_log_of_a_softmax_another_files_forward_applies_on_one_branch(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"net.py": DISTRIBUTIONAL_NET, "agent.py": DISTRIBUTIONAL_AGENT}, "MLD060")
    assert found == [("agent.py", line_of(DISTRIBUTIONAL_AGENT, "dist_a.log()"))]


def test_the_same_agent_on_a_network_that_returns_log_probabilities_is_quiet(tmp_path: Path) -> None:
    log_space = DISTRIBUTIONAL_NET.replace("F.softmax(q, dim=2)", "F.log_softmax(q, dim=2)")
    exp_then = DISTRIBUTIONAL_AGENT.replace("dist_a.log()", "dist_a")
    assert project_findings(tmp_path, {"net.py": log_space, "agent.py": exp_then}, "MLD060") == []


POLICY = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    class Policy(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def pi(self, x, dim=1):
            return F.softmax(self.fc(x), dim=dim)


    def train(batches):
        model = Policy()
        opt = torch.optim.Adam(model.parameters(), 1e-3)
        for states, actions, advantage in batches:
            pi_a = model.pi(states).gather(1, actions)
            loss = -(torch.log(pi_a) * advantage).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
"""


def test_the_log_of_a_probability_picked_from_a_policy_method_that_softmaxes(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"policy.py": POLICY}, "MLD060")
    assert found == [("policy.py", line_of(POLICY, "torch.log(pi_a)"))]


def test_a_policy_method_in_log_space_is_quiet(tmp_path: Path) -> None:
    log_space = POLICY.replace("F.softmax(self.fc(x), dim=dim)", "F.log_softmax(self.fc(x), dim=dim)") \
        .replace("torch.log(pi_a)", "pi_a")
    assert project_findings(tmp_path, {"policy.py": log_space}, "MLD060") == []


NLL_BY_HAND = """
    import torch


    def sequence_nll(probs, target_onehot, mask):
        log_p = torch.log(probs)
        token = -(target_onehot * log_p).sum(dim=-1)
        return (token * mask).sum(dim=1).mean()
"""


def test_a_hand_written_nll_over_a_logged_name(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"losses.py": NLL_BY_HAND}, "MLD061")
    assert found == [("losses.py", line_of(NLL_BY_HAND, "torch.log(probs)"))]


def test_the_same_nll_with_a_floor_is_quiet(tmp_path: Path) -> None:
    floored = NLL_BY_HAND.replace("torch.log(probs)", "torch.log(probs.clamp_min(1e-8))")
    assert project_findings(tmp_path, {"losses.py": floored}, "MLD061") == []


def test_an_entropy_of_a_logged_name_is_not_a_cross_entropy(tmp_path: Path) -> None:
    entropy = NLL_BY_HAND.replace("-(target_onehot * log_p)", "-(probs * log_p)")
    assert project_findings(tmp_path, {"losses.py": entropy}, "MLD061") == []


CAPTION_DECODER = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    class StepDecoder(nn.Module):
        def __init__(self, vocab, width):
            super().__init__()
            self.cell = nn.LSTMCell(width, width)
            self.fc = nn.Linear(width, vocab)
            self.vocab = vocab

        def forward(self, features, steps):
            h = c = features.new_zeros(features.size(0), self.cell.hidden_size)
            scores = features.new_zeros(features.size(0), steps, self.vocab)
            for t in range(steps):
                h, c = self.cell(features, (h, c))
                scores[:, t, :] = F.softmax(self.fc(h), dim=1)
            return scores, steps
"""

CAPTION_TRAIN = """
    import torch
    import torch.nn as nn
    from torch.nn.utils.rnn import pack_padded_sequence

    from decoder import StepDecoder


    def run_epoch(batches, decoder, criterion, opt):
        for features, captions, lengths in batches:
            scores, steps = decoder(features, captions.size(1))
            scores = pack_padded_sequence(scores, lengths, batch_first=True).data
            targets = pack_padded_sequence(captions, lengths, batch_first=True).data
            loss = criterion(scores, targets)
            opt.zero_grad()
            loss.backward()
            opt.step()


    def main(batches):
        decoder = StepDecoder(1000, 256)
        run_epoch(batches, decoder, nn.CrossEntropyLoss(), torch.optim.Adam(decoder.parameters()))
"""


def test_softmax_scores_written_into_a_new_zeros_buffer_reach_the_loss_packed(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"decoder.py": CAPTION_DECODER, "train.py": CAPTION_TRAIN}, "MLD001")
    assert [name for name, _ in found] == ["train.py"]


def test_raw_scores_written_into_the_buffer_are_quiet(tmp_path: Path) -> None:
    raw = CAPTION_DECODER.replace("F.softmax(self.fc(h), dim=1)", "self.fc(h)")
    assert project_findings(tmp_path, {"decoder.py": raw, "train.py": CAPTION_TRAIN}, "MLD001") == []


def test_a_packed_sequences_data_keeps_the_graph_and_is_not_a_break(tmp_path: Path) -> None:
    assert project_findings(tmp_path, {"decoder.py": CAPTION_DECODER, "train.py": CAPTION_TRAIN}, "MLD030") == []


def test_a_tensors_data_on_the_loss_path_is_still_a_break(tmp_path: Path) -> None:
    cut = CAPTION_TRAIN.replace("scores = pack_padded_sequence(scores, lengths, batch_first=True).data",
                                "scores = scores.data.flatten(0, 1)")
    assert cut != CAPTION_TRAIN
    found = project_findings(tmp_path, {"decoder.py": CAPTION_DECODER, "train.py": cut}, "MLD030")
    assert [name for name, _ in found] == ["train.py"]


VARIANTS = Path(__file__).resolve().parents[2] / "benchmarks" / "lint_variants" / "cases"


def test_a_model_unwrapped_for_saving_is_not_run_for_evaluation() -> None:
    # V8-003's fixed twin: `torch.save(accelerator.unwrap_model(model).state_dict(), ...)` after an evaluation
    # that leaves the model in eval mode was read as a model named `accelerator.unwrap_model` evaluated
    report = lint_paths([VARIANTS / "V8-003" / "ok"], LintSettings(select=("MLD020",)))
    assert [(Path(f.path).name, f.line) for f in report.findings] == []


TEMPERATURE_LOSS = """
    import pytorch_lightning as pl
    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    class ScaledCosineLoss(nn.Module):
        def __init__(self):
            super().__init__()
            self.log_scale = nn.Parameter(torch.tensor(2.3))

        def forward(self, anchors, positives):
            logits = self.log_scale.exp() * F.normalize(anchors, dim=-1) @ F.normalize(positives, dim=-1).T
            return F.cross_entropy(logits, torch.arange(len(anchors)))


    class PairModule(pl.LightningModule):
        def __init__(self, encoder):
            super().__init__()
            self.encoder = encoder
            self.criterion = ScaledCosineLoss()

        def _shared(self, batch):
            left, right = batch
            return self.criterion(self.encoder(left), self.encoder(right))

        def training_step(self, batch, batch_idx):
            return self._shared(batch)

        def configure_optimizers(self):
            return torch.optim.AdamW(self.encoder.parameters(), lr=1e-4)
"""


def test_a_lightning_optimizer_over_the_encoder_alone_leaves_out_a_loss_with_weights(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"pairs.py": TEMPERATURE_LOSS}, "MLD015")
    assert found == [("pairs.py", line_of(TEMPERATURE_LOSS, "torch.optim.AdamW(self.encoder"))]


def test_the_optimizer_over_every_parameter_is_quiet(tmp_path: Path) -> None:
    whole = TEMPERATURE_LOSS.replace("AdamW(self.encoder.parameters()", "AdamW(self.parameters()")
    assert project_findings(tmp_path, {"pairs.py": whole}, "MLD015") == []


def test_a_loss_with_weights_only_scored_outside_training_is_quiet(tmp_path: Path) -> None:
    scored = TEMPERATURE_LOSS.replace("            return self._shared(batch)",
                                      "            left, right = batch\n"
                                      "            return (self.encoder(left) - self.encoder(right)).pow(2).mean()") \
        .replace("        def configure_optimizers", "        def validation_step(self, batch, batch_idx):\n"
                                                   "            self.log('val', self._shared(batch))\n\n"
                                                   "        def configure_optimizers")
    assert scored != TEMPERATURE_LOSS
    assert project_findings(tmp_path, {"pairs.py": scored}, "MLD015") == []


EPOCH_RUNNERS = """
    import torch


    class Stage:
        def __init__(self, model, loss, device):
            self.model, self.loss, self.device = model, loss, device
            self.loss.to(device)

        def on_start(self):
            pass

        def run(self, loader):
            self.on_start()
            return [self.batch(x.to(self.device), y.to(self.device)).item() for x, y in loader]


    class TrainStage(Stage):
        def __init__(self, model, loss, optimizer, device):
            super().__init__(model, loss, device)
            self.optimizer = optimizer

        def on_start(self):
            self.model.train()

        def batch(self, x, y):
            self.optimizer.zero_grad()
            loss = self.loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            return loss


    class ValidStage(Stage):
        def on_start(self):
            self.model.eval()

        def batch(self, x, y):
            with torch.no_grad():
                return self.loss(self.model(x), y)
"""


def test_a_valid_stage_that_switches_to_eval_is_quiet_and_its_loss_is_no_model(tmp_path: Path) -> None:
    assert project_findings(tmp_path, {"stages.py": EPOCH_RUNNERS}, "MLD020") == []


def test_a_valid_stage_that_never_switches_to_eval(tmp_path: Path) -> None:
    unswitched = EPOCH_RUNNERS.replace("        def on_start(self):\n            self.model.eval()\n",
                                       "        def on_start(self):\n            pass\n")
    assert unswitched != EPOCH_RUNNERS
    found = project_findings(tmp_path, {"stages.py": unswitched}, "MLD020")
    assert [name for name, _ in found] == ["stages.py"]


BOUNDARY_HELPER = """
    import torch


    class Finetuner:
        def __init__(self, model, optimizer, loader, accum_steps):
            self.model, self.optimizer, self.loader, self.accum_steps = model, optimizer, loader, accum_steps

        def _at_boundary(self, step, total):
            return step % self.accum_steps == 0 or step + 1 == total

        def train(self):
            self.model.train()
            for step, (x, y) in enumerate(self.loader):
                loss = torch.nn.functional.mse_loss(self.model(x), y) / self.accum_steps
                loss.backward()
                if self._at_boundary(step, len(self.loader)):
                    self.optimizer.step()
                    self.optimizer.zero_grad()
"""


def test_an_off_by_one_accumulation_test_returned_by_a_helper_method(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"finetune.py": BOUNDARY_HELPER}, "MLD034")
    assert found == [("finetune.py", line_of(BOUNDARY_HELPER, "return step % self.accum_steps"))]


def test_the_helper_counting_from_one_is_quiet(tmp_path: Path) -> None:
    fixed = BOUNDARY_HELPER.replace("return step % self.accum_steps == 0", "return (step + 1) % self.accum_steps == 0")
    assert project_findings(tmp_path, {"finetune.py": fixed}, "MLD034") == []


def test_an_inline_or_with_the_last_batch_keeps_the_off_by_one(tmp_path: Path) -> None:
    inline = BOUNDARY_HELPER.replace("if self._at_boundary(step, len(self.loader)):",
                                     "if step % self.accum_steps == 0 or step + 1 == len(self.loader):")
    found = project_findings(tmp_path, {"finetune.py": inline}, "MLD034")
    assert found == [("finetune.py", line_of(inline, "if step % self.accum_steps == 0 or"))]


def test_an_evaluation_schedule_with_or_is_no_accumulation_test(tmp_path: Path) -> None:
    schedule = BOUNDARY_HELPER.replace("return step % self.accum_steps == 0 or step + 1 == total",
                                       "return step % self.eval_every == 0 or step + 1 == total")
    assert project_findings(tmp_path, {"finetune.py": schedule}, "MLD034") == []
