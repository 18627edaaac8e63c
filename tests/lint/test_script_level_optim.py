"""Optimiser rules read a script whose training step runs at module level, as they read a step function
(issue 17: research scripts, tutorials and notebook cells put the loop at the top of the file). Each firing
script is a rule's shape written as a script; each quiet one is its correct variant, also at module level."""

from .families import marked_snippet_tests

HEADER = "import torch\nimport torch.nn.functional as F\n"

FIRES = {
    # zero_grad between backward and step, straight-line (one notebook cell)
    "MLD011": """
        out = net(xb)
        crit(out, yb).backward()
        o.zero_grad()  # MLD011
        o.step()
    """,
    # a discriminator zeroed only after its step, after a generator update through it
    "MLD010": """
        for z, real in batches:
            g_loss = adv(disc(gen(z)), True)
            g_loss.backward()
            opt_g.step()
            opt_g.zero_grad()
            d_loss = adv(disc(real), True) + adv(disc(gen(z).detach()), False)
            d_loss.backward()  # MLD010
            opt_d.step()
            opt_d.zero_grad()
    """,
    # a step counter bumped before the scheduler is told it: one period ahead of the optimiser
    "MLD013": """
        n = 0
        for a, b in it:
            n += 1
            o.zero_grad()
            crit(m(a), b).backward()
            lr_sched.step(n)  # MLD013
            o.step()
    """,
    # a window loop at module level, stepped once it has seen `total` samples: nothing divides the losses
    "MLD014": """
        seen = 0
        while True:
            xb, yb = next(it)
            net(xb, yb).backward()  # MLD014
            seen += xb.shape[0]
            if seen >= total:
                break
        o.step()
        o.zero_grad()
    """,
    # a counter set at the top of the script and advanced after the test: true on the first micro-batch
    "MLD034": """
        n = 0
        while n < total:
            a, b = next(it)
            (net(a, b) / k).backward()
            if n % k == 0:  # MLD034
                o.step()
                o.zero_grad()
            n += 1
    """,
    # a loss module with its own weights, built beside the optimiser at module level and trained by the script's
    # loop; another function's parameter of the same name is not the script's global
    "MLD015": """
        class PairLoss(torch.nn.Module):
            def __init__(self, d):
                super().__init__()
                self.proj = torch.nn.Linear(d, d)

            def forward(self, a, b):
                return -(self.proj(a) * self.proj(b)).sum(-1).mean()

        def report(crit, q, r):
            crit.eval()
            print(crit(q, r))

        c = PairLoss(128)
        o = torch.optim.SGD(net.parameters(), lr=0.05)  # MLD015
        for p, q in dl:
            o.zero_grad()
            c(net(p), net(q)).backward()
            o.step()
    """,
    # one network back-propagated twice in a cell, the second optimiser never zeroed: it steps on both sums
    "MLD017": """
        opt1.zero_grad()
        crit(net(xb), yb).backward()
        opt1.step()
        crit(net(xb), yb).backward()  # MLD017
        opt2.step()
    """,
}

QUIET = {
    "MLD015": [
        """
        class PairLoss(torch.nn.Module):
            def __init__(self, d):
                super().__init__()
                self.proj = torch.nn.Linear(d, d)

            def forward(self, a, b):
                return -(self.proj(a) * self.proj(b)).sum(-1).mean()

        c = PairLoss(128)
        o = torch.optim.SGD([*net.parameters(), *c.parameters()], lr=0.05)
        for p, q in dl:
            o.zero_grad()
            c(net(p), net(q)).backward()
            o.step()
        """,
    ],
    "MLD017": [
        # a cell runs once: each optimiser steps after the one backward through its own network
        """
        opt2.zero_grad()
        net_a(xb).sum().backward()
        opt1.step()
        net_b(xb).sum().backward()
        opt2.step()
        """,
    ],
    "MLD014": [
        """
        seen = 0
        while True:
            xb, yb = next(it)
            (net(xb, yb) * xb.shape[0] / total).backward()
            seen += xb.shape[0]
            if seen >= total:
                break
        o.step()
        o.zero_grad()
        """,
    ],
    "MLD034": [
        # advanced before the test: the first step comes after k micro-batches
        """
        n = 0
        while n < total:
            a, b = next(it)
            (net(a, b) / k).backward()
            n += 1
            if n % k == 0:
                o.step()
                o.zero_grad()
        """,
    ],
    "MLD011": [
        """
        o.zero_grad()
        out = net(xb)
        crit(out, yb).backward()
        o.step()
        """,
    ],
    "MLD010": [
        # the discriminator cleared before its own backward
        """
        for z, real in batches:
            g_loss = adv(disc(gen(z)), True)
            g_loss.backward()
            opt_g.step()
            opt_g.zero_grad()
            opt_d.zero_grad()
            d_loss = adv(disc(real), True) + adv(disc(gen(z).detach()), False)
            d_loss.backward()
            opt_d.step()
        """,
        # a script step cell whose both sides clear
        """
        loss_fn(net(x), y).backward()
        if not mixed:
            opt.step()
            opt.zero_grad(set_to_none=True)
        else:
            scaler.step(opt)
            scaler.update()
            opt.zero_grad(set_to_none=True)
        """,
    ],
    "MLD013": [
        # the count starts at 0 when the scheduler reads it
        """
        n = 0
        for a, b in it:
            o.zero_grad()
            crit(m(a), b).backward()
            lr_sched.step(n)
            o.step()
            n += 1
        """,
        # a KL-weight annealer of another module, built from numbers only: it holds no optimiser
        """
        from annealing import Annealer
        o = torch.optim.Adam(m.parameters())
        beta = Annealer(0.0, 1.0, 5000)
        for a, b in it:
            beta.step()
            o.zero_grad()
            crit(m(a), b, beta.value).backward()
            o.step()
        """,
    ],
}


test_script_level_optimiser_step_fires, test_script_level_correct_optimiser_step_is_quiet = marked_snippet_tests(FIRES, QUIET, HEADER)
