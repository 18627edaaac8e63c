"""False-alarm families of the fifteenth session, judged on a random sample of the 500 repositories' findings: each
quiet shape beside a twin that still fires."""

from __future__ import annotations

import textwrap

from .families import snippet_lines


def _lines(source: str, code: str) -> list[int]:
    return snippet_lines(textwrap.dedent(source), code)


SQUEEZED_THEN_RESHAPED = """
    import torch.nn as nn

    class Features(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 2048, 3), nn.AdaptiveAvgPool2d(1))

        def forward(self, x):
            batch = x.size(0)
            x = self.features(x)
            x = x.squeeze()
            {after}
"""


def test_a_squeeze_reshaped_to_the_batch_right_after_keeps_the_batch_axis():
    """PointFusion's ResNet: with a batch of one the view puts the axis back."""
    assert _lines(SQUEEZED_THEN_RESHAPED.format(after="x = x.view(batch, 1, 2048)\n            return x"),
                  "MLD041") == []


def test_a_squeeze_returned_as_it_is_still_loses_the_batch_axis():
    assert _lines(SQUEEZED_THEN_RESHAPED.format(after="return x"), "MLD041") == [12]


def test_a_squeeze_inside_an_expression_reshaped_to_a_full_shape_and_a_squeezed_shape_read_are_quiet():
    """image2reverb: `list(l.squeeze().shape)` reads sizes; `torch.cat((l.squeeze(), pad), -1).reshape(n, -1, 8, 8)`."""
    source = """
        import torch
        import torch.nn as nn

        class Generator(nn.Module):
            def __init__(self):
                super().__init__()
                self.model = nn.Conv2d(1, 8, 3)
                self.output = nn.Conv2d(16, 1, 3)

            def forward(self, x, l):
                d = self.model(x)
                s = list(l.squeeze().shape)
                s[-1] = 512 - s[-1]
                z = torch.cat((l.squeeze(), torch.zeros(s).type_as(x)), -1).reshape(d.shape[0], -1, 8, 8)
                return self.output(torch.cat((d, z), 1))
    """
    assert _lines(source, "MLD041") == []


LOSS_WITH_A_PICTURE = """
    import torch.nn as nn

    class KeypointLoss(nn.Module):
        def forward(self, score, target, debug=False):
            {kept}
            return ((score - target) ** 2).mean()
"""


def test_a_squeeze_of_an_array_or_of_a_detached_cpu_copy_inside_a_loss_is_a_picture_not_the_loss():
    for kept in ("heat = target[0].detach().cpu().numpy().squeeze()",
                 "heat = target[0].permute(1, 2, 0).detach().cpu().clone().squeeze()"):
        assert _lines(LOSS_WITH_A_PICTURE.format(kept=kept), "MLD041") == [], kept


def test_a_squeeze_kept_inside_a_loss_still_fires():
    assert _lines(LOSS_WITH_A_PICTURE.format(kept="target = target.squeeze()"), "MLD041") == [6]


DROPOUT_RATE = """
    import torch.nn as nn
    import torch.nn.functional as F

    class Attention(nn.Module):
        def __init__(self, p):
            super().__init__()
            self.dropout_p = p

        def forward(self, attention):
            return F.dropout(attention, {rate})
"""


def test_functional_dropout_whose_rate_is_zero_outside_training_follows_eval():
    """hyena-dna: `F.dropout(attention, self.dropout_p if self.training else 0.0)`."""
    assert _lines(DROPOUT_RATE.format(rate="self.dropout_p if self.training else 0.0"), "MLD023") == []


def test_functional_dropout_with_a_fixed_rate_still_fires():
    assert _lines(DROPOUT_RATE.format(rate="self.dropout_p"), "MLD023") == [11]


RETRIEVER = """
    from typing import cast

    import torch
    import torch.nn as nn

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)
            self.drop = nn.Dropout(0.1)

        def forward(self, x):
            return self.drop(self.fc(x))

    class Retriever:
        def __init__(self):
            self.model = {built}

        def forward_queries(self, loader):
            embeddings = []
            for batch in loader:
                with torch.no_grad():
                    batch = {{k: v.to("cpu") for k, v in batch.items()}}
                    embeddings.extend(list(torch.unbind(self.model(**batch))))
            return embeddings
"""


def test_a_model_built_in_eval_mode_under_typing_cast_is_not_evaluated_in_training_mode():
    """vidore-benchmark: `self.model = cast(BiQwen2, BiQwen2.from_pretrained(...).eval())`."""
    assert _lines(RETRIEVER.format(built="cast(Encoder, Encoder().eval())"), "MLD020") == []


def test_the_same_model_built_without_eval_under_cast_still_fires():
    assert _lines(RETRIEVER.format(built="cast(Encoder, Encoder())"), "MLD020") != []


AGENT = """
    import numpy as np
    import torch as T
    import torch.nn as nn
    import torch.nn.functional as F
    import torch.optim as optim

    class DeepQNetwork(nn.Module):
        def __init__(self, lr, n_actions):
            super().__init__()
            self.fc1 = nn.Linear(8, 256)
            self.fc2 = nn.Linear(256, n_actions)
            {extra}
            self.optimizer = optim.Adam(self.parameters(), lr=lr)
            self.loss = nn.MSELoss()
            self.device = T.device("cuda:0" if T.cuda.is_available() else "cpu")
            self.to(self.device)

        def forward(self, state):
            return self.fc2(self.drop(F.relu(self.fc1(state))))

    class Agent:
        def __init__(self, lr, n_actions):
            self.epsilon = 0.1
            self.Q_eval = DeepQNetwork(lr, n_actions)

        def choose_action(self, observation):
            if np.random.random() > self.epsilon:
                state = T.tensor([observation]).to(self.Q_eval.device)
                actions = self.Q_eval.forward(state)
                return T.argmax(actions).item()
            return 0

        def learn(self, state, target):
            self.Q_eval.optimizer.zero_grad()
            loss = self.Q_eval.loss(self.Q_eval.forward(state), target)
            loss.backward()
            self.Q_eval.optimizer.step()
"""


def test_a_q_network_of_linear_layers_that_keeps_its_optimizer_loss_and_device_computes_alike_in_both_modes():
    """philtabor's DQN: only Linear layers; the optimizer, the criterion and the device on the module are no layers."""
    assert _lines(AGENT.format(extra="self.drop = nn.Identity()"), "MLD020") == []


def test_the_same_q_network_with_dropout_still_fires():
    assert _lines(AGENT.format(extra="self.drop = nn.Dropout(0.5)"), "MLD020") != []


CLASSIFIER = """
    import torch
    import torch.nn as nn

    class RNNClassifier(nn.Module):
        def __init__(self, n_chars, hidden, n_classes):
            super().__init__()
            self.embedding = nn.Embedding(n_chars, hidden)
            self.gru = nn.GRU(hidden, hidden, 1, bidirectional=True)
            self.fc = nn.Linear(hidden, n_classes)
            {extra}

        def forward(self, x):
            out, hidden = self.gru(self.embedding(x))
            return self.fc(self.drop(hidden[-1]))

    classifier = RNNClassifier(57, 100, 18)
    if torch.cuda.device_count() > 1:
        classifier = nn.DataParallel(classifier)
    optimizer = torch.optim.Adam(classifier.parameters())

    def train(loader):
        for names, countries in loader:
            loss = nn.functional.cross_entropy(classifier(names), countries)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    def test(test_loader):
        correct = 0
        with torch.no_grad():
            for names, countries in test_loader:
                pred = classifier(names).argmax(1)
                correct += (pred == countries).sum().item()
        return correct
"""


def test_a_mode_free_model_rewrapped_in_data_parallel_under_an_if_stays_mode_free():
    """PyTorchZeroToAll's name classifier: Embedding, a GRU without dropout and Linear, then nn.DataParallel."""
    assert _lines(CLASSIFIER.format(extra="self.drop = nn.Identity()"), "MLD020") == []


def test_the_same_rewrapped_model_with_dropout_still_fires():
    assert _lines(CLASSIFIER.format(extra="self.drop = nn.Dropout(0.2)"), "MLD020") != []


TWO_OPTIMIZERS = """
    def fit_batch(modules, optimizer, optimizer_done, batch):
        loss = modules.unet(batch).mean()
        loss.backward()
        loss_done = modules.done_detector(batch).mean()
        loss_done.backward()
        {zero}.zero_grad()
        optimizer_done.step()
        optimizer.step()
"""


def test_zeroing_one_optimizer_before_another_optimizer_steps_is_not_flagged_at_that_step():
    """speechbrain's diffusion recipe and OpenPrompt's two optimizers: the zeroed one holds other parameters."""
    source = TWO_OPTIMIZERS.replace("        optimizer.step()\n", "")
    assert _lines(source.format(zero="optimizer"), "MLD011") == []


def test_zeroing_the_optimizer_that_steps_next_still_fires():
    assert _lines(TWO_OPTIMIZERS.replace("        optimizer.step()\n", "").format(zero="optimizer_done"),
                  "MLD011") == [7]
    assert _lines(TWO_OPTIMIZERS.format(zero="optimizer"), "MLD011") == [7]


TRACKER = """
    class MetricsTracker(dict):
        def __add__(self, other):
            return MetricsTracker({{k: self.get(k, 0) + other.get(k, 0) for k in {{*self, *other}}}})

    def compute_loss(model, batch):
        loss = model(batch).sum()
        info = MetricsTracker()
        info["frames"] = batch.size(0)
        info["loss"] = {stored}
        return loss, info

    def train_one_epoch(model, optimizer, loader):
        tot_loss = MetricsTracker()
        for batch in loader:
            loss, loss_info = compute_loss(model, batch)
            tot_loss = tot_loss + loss_info
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return tot_loss
"""


def test_a_tracker_filled_only_with_numbers_is_summed_without_a_graph():
    """icefall's MetricsTracker in every recipe (164 findings): `info["loss"] = loss.detach().cpu().item()`."""
    assert _lines(TRACKER.format(stored="loss.detach().cpu().item()"), "MLD032") == []


def test_a_tracker_filled_with_the_loss_tensor_still_fires():
    assert _lines(TRACKER.format(stored="loss"), "MLD032") != []


PIPELINE = """
    from torch.utils.data import DataLoader

    def train(model, optimizer, trainset, workers):
        train_loader = DataLoader(trainset, {batching}, num_workers=workers)
        for x, y in train_loader:
            loss = model(x, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


def test_a_training_loader_that_takes_whole_batches_from_its_dataset_is_not_asked_to_shuffle():
    """asv-subtools' egs pipeline: `DataLoader(trainset, batch_size=None, ...)` over a dataset that batches itself."""
    assert _lines(PIPELINE.format(batching="batch_size=None"), "MLD050") == []


def test_a_training_loader_that_batches_samples_without_shuffle_still_fires():
    assert _lines(PIPELINE.format(batching="batch_size=32"), "MLD050") == [5]


ENCODED_BEFORE_SPLIT = """
    import numpy as np
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    def fit_logistic_regression(X, y):
        encoded = {fitted}
        X_train, X_test, y_train, y_test = train_test_split(X, encoded, test_size=0.8)
        return X_train, X_test, y_train, y_test
"""


def test_a_one_hot_encoding_of_the_labels_before_the_split_learns_only_the_class_names():
    """dgl's bgrl evaluation: `OneHotEncoder(categories="auto").fit_transform(y.reshape(-1, 1))`."""
    assert _lines(ENCODED_BEFORE_SPLIT.format(fitted='OneHotEncoder(categories="auto").fit_transform(y.reshape(-1, 1))'),
                  "MLD051") == []


def test_a_scaler_fitted_on_the_labels_before_the_split_still_fires():
    assert _lines(ENCODED_BEFORE_SPLIT.format(fitted="StandardScaler().fit_transform(y.reshape(-1, 1))"),
                  "MLD051") == [7]


STANDARDISED = """
    import torch

    def normalize_standard(x, dim=-1):
        return {body}
"""


def test_a_division_by_a_std_reshaped_after_the_where_test_is_guarded():
    """transformers-lightning: the test reads `x.std(dim)`, the division `x.std(dim).unsqueeze(-1)`."""
    guarded = ("torch.where((x.std(dim=dim) > 0).unsqueeze(-1), "
               "(x - x.mean(dim=dim).unsqueeze(-1)) / x.std(dim=dim).unsqueeze(-1), x - x.mean(dim=dim).unsqueeze(-1))")
    assert _lines(STANDARDISED.format(body=guarded), "MLD062") == []


def test_the_same_division_without_the_where_still_fires():
    assert _lines(STANDARDISED.format(body="(x - x.mean(dim=dim).unsqueeze(-1)) / x.std(dim=dim).unsqueeze(-1)"),
                  "MLD062") == [5]


EVALUATE_A_CLASS = """
    import torch

    def evaluate(model_path, envs, Model, episodes):
        agent = {built}
        agent.load_state_dict(torch.load(model_path))
        {switch}
        returns = []
        obs = envs.reset()
        while len(returns) < episodes:
            with torch.no_grad():
                actions = agent(torch.Tensor(obs)).argmax(-1)
            obs, reward, done, info = envs.step(actions.numpy())
            returns.append(reward)
        return returns
"""


def test_a_class_handed_in_and_constructed_is_not_taken_for_a_model_run_on_data():
    """cleanrl's ppo_eval: `agent = Model(envs).to(device)`, then `agent.eval()`."""
    assert _lines(EVALUATE_A_CLASS.format(built="Model(envs).to('cpu')", switch="agent.eval()"), "MLD020") == []


def test_the_constructed_agent_evaluated_without_eval_still_fires():
    assert _lines(EVALUATE_A_CLASS.format(built="Model(envs).to('cpu')", switch="pass"), "MLD020") != []


VAE_STEP = """
    import torch.nn.functional as F
    from lightning.pytorch import LightningModule

    class VAE(LightningModule):
        def step(self, batch):
            x, _ = batch
            x_hat, kl = self(x)
            recon_loss = F.mse_loss(x_hat, x)
            loss = kl + recon_loss
            logs = {{"recon_loss": recon_loss, "kl": kl, "loss": loss}}
            return loss, logs

        def training_step(self, batch, batch_idx):
            loss, logs = self.step(batch)
            {use}
            return loss
"""


def test_a_log_dict_rekeyed_by_a_comprehension_for_lightnings_log_keeps_no_graph():
    """lightning-bolts' VAE: `self.log_dict({f"train_{k}": v for k, v in logs.items()})`; Lightning detaches it."""
    assert _lines(VAE_STEP.format(use='self.log_dict({f"train_{k}": v for k, v in logs.items()})'), "MLD032") == []


def test_the_same_dict_kept_on_the_module_still_fires():
    assert _lines(VAE_STEP.format(use="self.history.append(logs)"), "MLD032") != []
