"""Blind split 10's optimiser and evaluation-mode families (task F12b), each with fixed twins that stay quiet."""

import textwrap

from mldebug_mcp.lint.engine import lint_source


def _lines(source: str, code: str, path: str = "predict.py") -> list[int]:
    findings = lint_source(textwrap.dedent(source), path)
    assert not any(f.code == "MLD000" for f in findings), "the snippet must parse"
    return sorted(f.line for f in findings if f.code == code)


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


# MLD020: an evaluation function that leaves the mode to its callers; one caller switches eval() first, the epoch
# loop calls it right after train() without eval(): eval() goes before that call.
TRAINER_METHODS = """
    import torch


    class Runner:
        def __init__(self, net, loader, val_loader):
            self.net, self.loader, self.val_loader = net, loader, val_loader
            self.opt = torch.optim.Adam(net.parameters())

        def run_test(self):
            self.net.eval()
            return self.test_epoch()

        def fit(self, epochs):
            for epoch in range(epochs):
                self.net.train()
                for x, y in self.loader:
                    self.opt.zero_grad()
                    torch.nn.functional.mse_loss(self.net(x), y).backward()
                    self.opt.step()
    {switch}
                score = self.test_epoch()
                print(epoch, score)

        def test_epoch(self):
            total = 0.0
            with torch.no_grad():
                for x, y in self.val_loader:
                    total += (self.net(x) - y).abs().mean().item()
            return total
"""

FUNCTIONS_WITH_MODEL = """
    import torch


    def validate(model, loader):
        errors = []
        for x, y in loader:
            errors.append((model(x).argmax(1) != y).float().mean())
        return torch.stack(errors).mean()


    def train(network, loader, val_loader, optimizer, epochs):
        for epoch in range(epochs):
            network.train()
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(network(x), y).backward()
                optimizer.step()
    {switch}
            if epoch % 5 == 0:
                print(validate(network, val_loader))


    def test(network, test_loader):
        network.eval()
        return validate(network, test_loader)
"""

HELPER_TRAINS = """
    import torch


    class Trainer:
        def __init__(self, model, data):
            self.model, self.data = model, data
            self.optim = torch.optim.SGD(model.parameters(), lr=0.1)

        def train_epoch(self):
            self.model.train()
            for x, y in self.data.train:
                self.optim.zero_grad()
                self.model.loss(x, y).backward()
                self.optim.step()

        def evaluate_split(self, split):
            losses = []
            with torch.no_grad():
                for x, y in getattr(self.data, split):
                    losses.append(torch.nn.functional.mse_loss(self.model(x), y).item())
            return sum(losses) / len(losses)

        def final_test(self):
            self.model.eval()
            return self.evaluate_split("test")

        def run(self, epochs):
            for _ in range(epochs):
                self.model.train()
                self.train_epoch()
    {switch}
                best = self.evaluate_split("val")
            return best
"""


def _call_line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(textwrap.dedent(source).splitlines(), 1) if text in line)


def test_evaluation_called_after_train_beside_an_eval_caller_is_reported_at_the_call():
    cases = ((TRAINER_METHODS, "score = self.test_epoch()", "self.net", "runner.py", 12),
             (FUNCTIONS_WITH_MODEL, "print(validate(network", "network", "train.py", 8),
             (HELPER_TRAINS, 'best = self.evaluate_split("val")', "self.model", "trainer.py", 12))
    for source, call, name, path, indent in cases:
        buggy = source.replace("    {switch}\n", "")
        assert _call_line(buggy, call) in _lines(buggy, "MLD020", path), path
        fixed = source.replace("{switch}", " " * indent + f"{name}.eval()")
        assert _lines(fixed, "MLD020", path) == [], path


# MLD010: several generator updates before the discriminator's; the adversarial one backpropagates through the
# (not frozen) discriminator, whose optimiser is zeroed only after its own step: its zero_grad goes right after
# that generator update. Set-up that freezes other modules (requires_grad_(False) on an encoder) changes nothing.
GAN_FUNCTION = """
    import torch


    def train(gen, critic, encoder, loader, epochs):
        encoder.requires_grad_(False)
        opt_g = torch.optim.Adam(gen.parameters())
        opt_d = torch.optim.Adam(critic.parameters())
        for _ in range(epochs):
            for x, y in loader:
                rec = gen(encoder(x))
                loss_rec = (rec - y).abs().mean()
                loss_rec.backward()
                opt_g.step()
                opt_g.zero_grad()
                fake = gen(encoder(x))
                loss_adv = -critic(fake).mean()
                loss_adv.backward()
                opt_g.step()
                opt_g.zero_grad()
    {switch}
                loss_idt = (gen(encoder(y)) - y).abs().mean()
                loss_idt.backward()
                opt_g.step()
                opt_g.zero_grad()
                loss_d = critic(fake.detach()).mean() - critic(y).mean()
                loss_d.backward()
                opt_d.step()
                opt_d.zero_grad()
"""

GAN_TRAINER = """
    import torch


    class CycleTrainer:
        def __init__(self, g_ab, g_ba, disc_a, disc_b):
            self.g_ab, self.g_ba, self.disc_a, self.disc_b = g_ab, g_ba, disc_a, disc_b
            self.optimizer_g = torch.optim.Adam(list(g_ab.parameters()) + list(g_ba.parameters()))
            self.optimizer_disc = torch.optim.Adam(list(disc_a.parameters()) + list(disc_b.parameters()))

        def fit(self, loader, accelerator):
            for a, b in loader:
                fake_b, fake_a = self.g_ab(a), self.g_ba(b)
                gan_loss = self.disc_b(fake_b).mean() + self.disc_a(fake_a).mean()
                accelerator.backward(gan_loss)
                self.optimizer_g.step()
                self.optimizer_g.zero_grad()
    {switch}
                cycle = (self.g_ba(fake_b) - a).abs().mean() + (self.g_ab(fake_a) - b).abs().mean()
                accelerator.backward(cycle)
                self.optimizer_g.step()
                self.optimizer_g.zero_grad()
                d_loss = self.disc_b(fake_b.detach()).mean() + self.disc_a(fake_a.detach()).mean()
                accelerator.backward(d_loss)
                self.optimizer_disc.step()
                self.optimizer_disc.zero_grad()
"""

GAN_SCRIPT = """
    import torch
    from nets import G, D

    netG, netD = G(), D()
    encoder = torch.hub.load("repo", "encoder")
    encoder.requires_grad_(False)
    optG = torch.optim.Adam(netG.parameters())
    optD = torch.optim.Adam(netD.parameters())
    for epoch in range(10):
        for real in torch.load("data.pt"):
            fake = netG(torch.randn(8, 16))
            errG = torch.nn.functional.softplus(-netD(fake)).mean()
            errG.backward()
            optG.step()
            optG.zero_grad()
    {switch}
            feat = (encoder(fake) - encoder(real)).pow(2).mean()
            feat.backward()
            optG.step()
            optG.zero_grad()
            errD = torch.nn.functional.softplus(netD(fake.detach())).mean()
            errD.backward()
            optD.step()
            optD.zero_grad()
"""


def test_discriminator_zeroed_after_its_step_is_reported_after_the_adversarial_update():
    cases = ((GAN_FUNCTION, "loss_adv.backward()", "opt_d", 12, "train.py"),
             (GAN_TRAINER, "accelerator.backward(gan_loss)", "self.optimizer_disc", 12, "trainer.py"),
             (GAN_SCRIPT, "errG.backward()", "optD", 8, "gan.py"))
    for source, backward, optimizer, indent, path in cases:
        buggy = source.replace("    {switch}\n", "")
        assert _lines(buggy, "MLD010", path) == [_call_line(buggy, backward) + 2], path
        fixed = source.replace("{switch}", " " * indent + f"{optimizer}.zero_grad()")
        assert _lines(fixed, "MLD010", path) == [], path


# MLD010: one optimiser stepped twice per iteration (a reconstruction update, then an adversarial one), cleared
# before only the second: the first applies the gradients the previous adversarial backward left.
TWICE_SCRIPT = """
    import torch
    from nets import G, D

    netG, netD = G(), D()
    optD = torch.optim.Adam(netD.parameters())
    optG = torch.optim.Adam(netG.parameters())
    for x in torch.load("data.pt"):
        netD.zero_grad()
        errD = netD(x).mean() - netD(netG(x).detach()).mean()
        errD.backward()
        optD.step()
    {switch}
        rec = (netG(x) - x).pow(2).mean()
        rec.backward()
        optG.step()
        netG.zero_grad()
        errG = -netD(netG(x)).mean()
        errG.backward()
        optG.step()
"""

TWICE_FUNCTION = """
    import torch


    def fit(model, critic, loader, opt_model, opt_critic):
        for batch in loader:
            opt_critic.zero_grad()
            critic_loss = critic(batch).mean()
            critic_loss.backward()
            opt_critic.step()
    {switch}
            vae_loss = model.elbo(batch)
            vae_loss.backward()
            opt_model.step()
            opt_model.zero_grad()
            adv_loss = -critic(model.sample(batch.size(0))).mean()
            adv_loss.backward()
            opt_model.step()
"""

TWICE_METHOD = """
    import torch


    class Trainer:
        def __init__(self, encoder, decoder):
            self.encoder, self.decoder = encoder, decoder
            self.optimizer = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()))

        def train_epoch(self, loader):
            for x, y in loader:
    {switch}
                recon = (self.decoder(self.encoder(x)) - x).abs().mean()
                recon.backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
                task = torch.nn.functional.cross_entropy(self.decoder.head(self.encoder(x)), y)
                task.backward()
                self.optimizer.step()
"""


def test_optimizer_stepped_twice_and_cleared_once_is_reported_before_the_uncleared_update():
    cases = ((TWICE_SCRIPT, "rec = ", "optG", 4, "vaegan.py"),
             (TWICE_FUNCTION, "vae_loss = ", "opt_model", 8, "train.py"),
             (TWICE_METHOD, "recon = ", "self.optimizer", 12, "trainer.py"))
    for source, update, optimizer, indent, path in cases:
        buggy = source.replace("    {switch}\n", "")
        assert _lines(buggy, "MLD010", path) == [_call_line(buggy, update)], path
        fixed = source.replace("{switch}", " " * indent + f"{optimizer}.zero_grad()")
        assert _lines(fixed, "MLD010", path) == [], path
        assert _lines(fixed, "MLD017", path) == [], path


# MLD020 (quiet): a function never called in this file but handed by name to another object's method (a trainer
# of another file that switches the mode itself) runs in the mode that method sets.
CALLBACKS = (
    """
    import torch
    import trainer_lib

    def main(model, loader, mode):
        runner = trainer_lib.Runner(model, loader)
        if mode == "eval":
            def evaluate(net, batch):
                x, y = batch
                return (net(x).argmax(1) == y).float().mean()
            print(runner.eval(evaluate, "model.pt"))
    """,
    """
    import torch
    from engine import Engine

    def predict_step(model, batch):
        with torch.no_grad():
            return model(batch["x"]).softmax(-1)

    engine = Engine(torch.load("net.pt", weights_only=False))
    engine.run(step_fn=predict_step)
    """,
    """
    import torch

    def score(network, images):
        return network(images).sigmoid()

    def test(harness, checkpoint):
        harness.load(checkpoint)
        return harness.evaluate(score)
    """,
)

CALLED_HERE = """
    import torch

    def evaluate(net, loader):
        return sum((net(x).argmax(1) == y).float().mean().item() for x, y in loader)

    def main(net, loader, opt):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
        print(evaluate(net, loader))
"""


def test_function_handed_to_another_objects_method_is_quiet():
    for source in CALLBACKS:
        assert _lines(source, "MLD020", "classify.py") == []
    assert _lines(CALLED_HERE, "MLD020", "train.py") != []


# MLD032: an epoch function that returns a list of `loss.item()` values keeps no graph in the caller's history;
# the same list of live losses does.
EPOCH_LISTS = (
    """
    import torch.nn.functional as F

    def train(model, loader, optimizer):
        losses, scores = [], []
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            losses.append({kept})
            scores.append((model(x).argmax(1) == y).float().mean().item())
            loss.backward()
            optimizer.step()
        return losses, scores

    def main(model, loader, optimizer, epochs):
        history = []
        for epoch in range(epochs):
            train_losses, train_scores = train(model, loader, optimizer)
            history.append(train_losses)
        return history
    """,
    """
    import torch

    class Runner:
        def epoch(self, loader):
            batch_losses = []
            for x, y in loader:
                self.opt.zero_grad()
                loss = torch.nn.functional.mse_loss(self.net(x), y)
                loss.backward()
                self.opt.step()
                batch_losses.append({kept})
            return batch_losses

        def fit(self, loader, epochs):
            curve = []
            for _ in range(epochs):
                epoch_losses = self.epoch(loader)
                curve.append(epoch_losses)
            return curve
    """,
    """
    import torch

    def run_epoch(net, batches, opt):
        per_batch = []
        for x, y in batches:
            opt.zero_grad()
            loss = (net(x) - y).pow(2).mean()
            loss.backward()
            opt.step()
            per_batch.append({kept})
        return per_batch

    if __name__ == "__main__":
        net, opt, batches = torch.load("setup.pt", weights_only=False)
        log = []
        for epoch in range(10):
            epoch_loss = run_epoch(net, batches, opt)
            log += [epoch_loss]
    """,
)


def test_returned_list_of_item_values_keeps_no_graph():
    for source in EPOCH_LISTS:
        assert _lines(source.replace("{kept}", "loss.item()"), "MLD032", "train.py") == []
        assert _lines(source.replace("{kept}", "float(loss)"), "MLD032", "train.py") == []
        live = source.replace("{kept}", "loss")
        assert _call_line(live, "append(loss)") in _lines(live, "MLD032", "train.py")
