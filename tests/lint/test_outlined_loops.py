"""Rules that follow a training step must also read it when the step is split over functions (issue 17,
`outlined` and `main` rewrites of benchmarks/lint_mutations.py): the micro-batch loop in a helper whose caller
steps, the model and loss built in `main()` and handed to a `train_one_epoch(...)` helper, a script whose `main()`
declares `global model`. Each firing shape has a correct variant that stays quiet."""

from .families import marked_snippet_tests

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"

NET = """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(10, 3)

            def forward(self, x):
                return torch.softmax(self.fc(x), dim=-1)  # MLD001
"""

WINDOW = """
        def accumulate(model, batches, total):
            seen = 0
            while True:
                x, y = next(batches)
                model(x, y).backward()  # MLD014
                seen += x.shape[0]
                if seen >= total:
                    break


        def train_step(model, batches, total, log):
            accumulate(model, batches, total)
            log("accumulated", total)


        def fit(model, opt, batches, total, steps, log):
            for _ in range(steps):
                train_step(model, batches, total, log)
                opt.step()
                opt.zero_grad()
"""

FIRES = {
    # a forward_backward helper back-propagates each micro-batch undivided; the caller steps after it
    "MLD014": ["""
        def forward_backward(model, micro_batches, loss_fn):
            for x, y in micro_batches:
                loss = loss_fn(model(x), y)
                loss.backward()  # MLD014


        def train(model, loader, loss_fn, optimizer, accum_steps=4):
            for batch in loader:
                optimizer.zero_grad()
                forward_backward(model, batch.chunk(accum_steps), loss_fn)
                optimizer.step()
    """,
        # a window loop (stepped once `total` samples are seen) in a helper of the step function, whose caller steps
        WINDOW,
    ],
    "MLD001": [
        # model and loss built in main(), handed to the epoch helper
        NET + """
        def train_one_epoch(model, loader, loss_fn, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()


        def main():
            net = Net()
            criterion = nn.CrossEntropyLoss()
            optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(3):
                train_one_epoch(net, [], criterion, optimizer)
        """,
        # a model method read in the epoch helper; main() builds the model through a factory
        """
        class Seq2Seq(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(16, 100)

            def project(self, x):
                return torch.log_softmax(self.proj(x), dim=-1)  # MLD001


        def get_model(cfg):
            return Seq2Seq()


        def train_one_epoch(model, loader, loss_fn, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                out = model.project(x)
                loss = loss_fn(out.view(-1, 100), y.view(-1))
                loss.backward()
                optimizer.step()


        def main(cfg):
            model = get_model(cfg).to("cuda")
            loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
            optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
            for epoch in range(cfg.epochs):
                train_one_epoch(model, cfg.loader, loss_fn, optimizer)
        """,
        # a step function nested in main() reads the model main() built (a closure)
        NET + """
        def main(loader):
            model = Net()
            optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

            def train(x, y):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()

            for x, y in loader:
                train(x, y)
        """,
        # a script's main() declares the model and loss global; the epoch function reads the globals
        NET + """
        def train_epoch(loader):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


        def main():
            global model, criterion, optimizer
            model = Net()
            criterion = nn.CrossEntropyLoss()
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            train_epoch([])


        if __name__ == "__main__":
            main()
        """,
    ],
    # the decoder built in main() is handed to the epoch helper that trains it; the optimiser holds the encoder only
    "MLD015": ["""
        def train_one_epoch(encoder, decoder, loader, optimizer):
            for x in loader:
                optimizer.zero_grad()
                loss = ((decoder(encoder(x)) - x) ** 2).mean()
                loss.backward()
                optimizer.step()


        def main():
            encoder = nn.Linear(10, 2)
            decoder = nn.Linear(2, 10)
            optimizer = torch.optim.Adam(encoder.parameters(), lr=1e-3)  # MLD015
            for epoch in range(3):
                train_one_epoch(encoder, decoder, [], optimizer)
    """, """
        def train_epoch(loader):
            for x, y in loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(head(encoder(x)), y)
                loss.backward()
                optimizer.step()


        def main():
            global encoder, head, optimizer
            encoder = nn.Linear(10, 16)
            head = nn.Linear(16, 3)
            optimizer = torch.optim.Adam(encoder.parameters(), lr=1e-3)  # MLD015
            train_epoch([])


        if __name__ == "__main__":
            main()
    """],
    # the generator's backward runs in a helper; the discriminator, whose gradients it also filled, is zeroed
    # only after its own step
    "MLD010": ["""
        def generator_backward(gen, disc, z):
            g_loss = F.binary_cross_entropy_with_logits(disc(gen(z)), torch.ones(len(z), 1))
            g_loss.backward()


        def train(gen, disc, opt_g, opt_d, batches):
            for z, real in batches:
                generator_backward(gen, disc, z)
                opt_g.step()
                opt_g.zero_grad()
                d_loss = F.softplus(-disc(real)).mean() + F.softplus(disc(gen(z).detach())).mean()
                d_loss.backward()  # MLD010
                opt_d.step()
                opt_d.zero_grad()
    """, """
        def generator_backward(gen, disc, z):
            g_loss = F.binary_cross_entropy_with_logits(disc(gen(z)), torch.ones(len(z), 1))
            g_loss.backward()


        def discriminator_backward(gen, disc, z, real):
            d_loss = F.softplus(-disc(real)).mean() + F.softplus(disc(gen(z).detach())).mean()
            d_loss.backward()


        def train(gen, disc, opt_g, opt_d, batches):
            for z, real in batches:
                generator_backward(gen, disc, z)
                opt_g.step()
                opt_g.zero_grad()
                discriminator_backward(gen, disc, z, real)  # MLD010
                opt_d.step()
                opt_d.zero_grad()
    """],
}

QUIET = {
    "MLD014": [
        # each micro-batch loss divided by their number
        """
        def forward_backward(model, micro_batches, loss_fn):
            for x, y in micro_batches:
                loss = loss_fn(model(x), y) / len(micro_batches)
                loss.backward()


        def train(model, loader, loss_fn, optimizer, accum_steps=4):
            for batch in loader:
                optimizer.zero_grad()
                forward_backward(model, batch.chunk(accum_steps), loss_fn)
                optimizer.step()
        """,
        # the helper's caller does not step after it (evaluation of gradients only)
        """
        def forward_backward(model, micro_batches, loss_fn):
            for x, y in micro_batches:
                loss = loss_fn(model(x), y)
                loss.backward()


        def gradient_norms(model, loader, loss_fn):
            for batch in loader:
                model.zero_grad()
                forward_backward(model, batch.chunk(4), loss_fn)
                print(sum(p.grad.norm() for p in model.parameters()))
        """,
        # each window's loss weighted by its share of the total
        WINDOW.replace("model(x, y).backward()  # MLD014", "(model(x, y) * x.shape[0] / total).backward()"),
    ],
    "MLD001": [
        # the loss built in main() takes probabilities
        NET.replace("  # MLD001", "") + """
        def train_one_epoch(model, loader, loss_fn, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                loss = loss_fn(torch.log(model(x)), y)
                loss.backward()
                optimizer.step()


        def main():
            net = Net()
            criterion = nn.NLLLoss()
            optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(3):
                train_one_epoch(net, [], criterion, optimizer)
        """,
        # the helper's callers hand in two different models: which one runs is not known here
        """
        class Seq2Seq(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(16, 100)

            def project(self, x):
                return torch.log_softmax(self.proj(x), dim=-1)


        class Plain(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(16, 100)

            def project(self, x):
                return self.proj(x)


        def train_one_epoch(model, loader, loss_fn, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                out = model.project(x)
                loss = loss_fn(out.view(-1, 100), y.view(-1))
                loss.backward()
                optimizer.step()


        def main(cfg):
            loss_fn = nn.CrossEntropyLoss()
            a, b = Seq2Seq(), Plain()
            train_one_epoch(a, cfg.loader, nn.NLLLoss(), torch.optim.Adam(a.parameters()))
            train_one_epoch(b, cfg.loader, loss_fn, torch.optim.Adam(b.parameters()))
        """,
        # the nested step function builds its own model (a parameter of the same name)
        NET.replace("  # MLD001", "") + """
        class Logits(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(10, 3)

            def forward(self, x):
                return self.fc(x)


        def main(loader):
            model = Net()

            def train(model, x, y):
                loss = F.cross_entropy(model(x), y)
                loss.backward()

            for x, y in loader:
                train(Logits(), x, y)
        """,
        # the global loss is one that takes probabilities
        NET.replace("  # MLD001", "") + """
        def train_epoch(loader):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(torch.log(model(x)), y)
                loss.backward()
                optimizer.step()


        def main():
            global model, criterion, optimizer
            model = Net()
            criterion = nn.NLLLoss()
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            train_epoch([])


        if __name__ == "__main__":
            main()
        """,
    ],
    "MLD015": [
        # a script's main() declares the head global and hands both to the optimiser
        """
        def train_epoch(loader):
            for x, y in loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(head(encoder(x)), y)
                loss.backward()
                optimizer.step()


        def main():
            global encoder, head, optimizer
            encoder = nn.Linear(10, 16)
            head = nn.Linear(16, 3)
            optimizer = torch.optim.Adam([*encoder.parameters(), *head.parameters()], lr=1e-3)
            train_epoch([])
        """,
        # a target network handed to the update, refreshed by copying the online network's weights
        """
        def train(q, q_target, batch, optimizer):
            s, a, r, s_prime = batch
            target = r + 0.99 * q_target(s_prime).max(1)[0]
            loss = F.smooth_l1_loss(q(s).gather(1, a), target.unsqueeze(1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


        def main(batches):
            q = nn.Linear(4, 2)
            q_target = nn.Linear(4, 2)
            q_target.load_state_dict(q.state_dict())
            optimizer = torch.optim.Adam(q.parameters(), lr=1e-3)
            for batch in batches:
                train(q, q_target, batch, optimizer)
        """,
        # a loss module with weights of its own handed to the epoch helper as the criterion
        """
        class WeightedLoss(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = nn.Parameter(torch.ones(1))

            def forward(self, out, y):
                return F.cross_entropy(out, y) * self.scale.detach()


        def train_one_epoch(model, loader, criterion, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()


        def main(loader):
            model = nn.Linear(10, 3)
            criterion = WeightedLoss()
            optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
            train_one_epoch(model, loader, criterion, optimizer)
        """,
        # both halves in the optimiser
        """
        def train_one_epoch(encoder, decoder, loader, optimizer):
            for x in loader:
                optimizer.zero_grad()
                loss = ((decoder(encoder(x)) - x) ** 2).mean()
                loss.backward()
                optimizer.step()


        def main():
            encoder = nn.Linear(10, 2)
            decoder = nn.Linear(2, 10)
            optimizer = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=1e-3)
            for epoch in range(3):
                train_one_epoch(encoder, decoder, [], optimizer)
        """,
        # the helper only runs the decoder under no_grad (a frozen pretrained decoder)
        """
        def train_one_epoch(encoder, decoder, loader, optimizer):
            for x in loader:
                optimizer.zero_grad()
                with torch.no_grad():
                    target = decoder(x)
                loss = ((encoder(x) - target) ** 2).mean()
                loss.backward()
                optimizer.step()


        def main():
            encoder = nn.Linear(10, 10)
            decoder = nn.Linear(10, 10)
            optimizer = torch.optim.Adam(encoder.parameters(), lr=1e-3)
            for epoch in range(3):
                train_one_epoch(encoder, decoder, [], optimizer)
        """,
    ],
    "MLD010": [
        # the discriminator cleared before its own backward
        """
        def generator_backward(gen, disc, z):
            g_loss = F.binary_cross_entropy_with_logits(disc(gen(z)), torch.ones(len(z), 1))
            g_loss.backward()


        def train(gen, disc, opt_g, opt_d, batches):
            for z, real in batches:
                generator_backward(gen, disc, z)
                opt_g.step()
                opt_g.zero_grad()
                opt_d.zero_grad()
                d_loss = F.softplus(-disc(real)).mean() + F.softplus(disc(gen(z).detach())).mean()
                d_loss.backward()
                opt_d.step()
        """,
    ],
}


test_outlined_step_fires, test_outlined_correct_step_is_quiet = marked_snippet_tests(FIRES, QUIET, HEADER)
