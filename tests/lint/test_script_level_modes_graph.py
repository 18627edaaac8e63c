"""Mode, graph and accumulation rules must read a script whose training loop runs at module level as they read
the same loop in a function (issue 17: research scripts, tutorials and notebook cells keep the loop at the top of
the file). Each firing script is a rule's shape written as a script; each quiet one is its correct variant, also
at module level."""

from .families import marked_snippet_tests

HEADER = "import torch\nimport torch.nn.functional as F\n"

FIRES = {
    # a teacher built and loaded by the script, run under no_grad in its top-level distillation loop, never switched;
    # and a top-level epoch loop over the phases that switches to train() for every phase, only the update gated
    "MLD020": """
        import torchvision

        u9 = torchvision.models.resnet50()
        u9.load_state_dict(torch.load(path_a))  # MLD020
        for a, b in d1:
            with torch.no_grad():
                t = u9(a).softmax(-1)
            l = F.kl_div(net(a).log_softmax(-1), t, reduction="batchmean")
            o.zero_grad()
            l.backward()
            o.step()

        model = build_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        for epoch in range(25):
            for phase in ["train", "val"]:
                model.train()  # MLD020
                for x, y in loaders[phase]:
                    optimizer.zero_grad()
                    with torch.set_grad_enabled(phase == "train"):
                        loss = criterion(model(x), y)
                        if phase == "train":
                            loss.backward()
                            optimizer.step()
    """,
    # read already (no change needed), kept here as scripts: a helper of the script that switches to eval() and never
    # back, called in the top-level training loop
    "MLD021": """
        def check_split(m, d):
            m.eval()
            with torch.no_grad():
                return sum(F.cross_entropy(m(u), v).item() for u, v in d)

        net.train()
        for j, (u, v) in enumerate(d1):
            o.zero_grad()  # MLD021
            F.cross_entropy(net(u), v).backward()
            o.step()
            if j % every == 0:
                print(j, check_split(net, d2))
    """,
    # a helper of the script evaluating with autograd on, called at top level after eval()
    "MLD022": """
        def run_epoch(model, batches, loss_compute):
            total = 0.0
            for x, y in batches:
                total += float(loss_compute(model(x), y))
            return total

        for epoch in range(epochs):
            model.train()
            run_epoch(model, train_batches, compute_train)
            model.eval()
            valid_loss = run_epoch(model, valid_batches, compute_valid)  # MLD022
            print(epoch, valid_loss)
    """,
    # the generator's update of a script (its loss scores the verdict against "real" labels) detaches its output
    "MLD030": """
        bce = torch.nn.BCELoss()
        for z in batches:
            sample = generator(z)
            frozen_sample = sample.detach()  # MLD030
            adversarial = bce(critic(frozen_sample), torch.ones(z.shape[0]))
            opt.zero_grad()
            adversarial.backward()
            opt.step()
    """,
    # clipping a critic's weights in place at top level, outside no_grad
    "MLD031": """
        for x in loader:
            opt.zero_grad()
            critic(x).mean().backward()
            opt.step()
            for p in critic.parameters():
                p.clamp_(-0.01, 0.01)  # MLD031
    """,
    # the script's earlier cells define a step that freezes the generator, never called by this loop: its body does
    # not run before the discriminator's backward
    "MLD035": """
        def generator_only_step(g, d, opt, z):
            g.requires_grad_(True)
            d.requires_grad_(False)
            netG.requires_grad_(False)
            opt.step()

        for real in loader:
            opt_g.zero_grad()
            opt_d.zero_grad()
            fake = netG(noise())
            errD = bce(netD(real), torch.ones(len(real))) + bce(netD(fake), torch.zeros(len(real)))  # MLD035
            errD.backward(retain_graph=True)
            errG = bce(netD(fake), torch.ones(len(real)))
            errG.backward()
            opt_d.step()
            opt_g.step()
    """,
    # a dict of loss tensors summed into running totals per key in a module-level loop (the backward runs on their
    # sum in the outer loop, not in the loop over the dict); and a loss an engine set up elsewhere (a notebook's
    # earlier cell) backwards, kept in a list
    "MLD032": """
        from collections import defaultdict

        model = Net()
        opt = torch.optim.Adam(model.parameters(), 1e-3)
        for epoch in range(10):
            totals = defaultdict(float)
            for x, y in loader:
                out = model(x)
                losses = {"ce": F.cross_entropy(out, y), "aux": out.pow(2).mean()}
                total = sum(losses.values())
                opt.zero_grad()
                total.backward()
                opt.step()
                for k, v in losses.items():
                    totals[k] += v  # MLD032
            print(epoch, dict(totals))

        kept = []
        for bt in dl:
            r = m(**bt).loss
            eng.backward(r)
            o.step()
            kept.append(r)  # MLD032
    """,
}

QUIET = {
    "MLD020": [
        # the teacher is switched to eval mode after loading
        """
        import torchvision

        teacher = torchvision.models.resnet50()
        teacher.load_state_dict(torch.load("teacher.pt"))
        teacher.eval()
        student = torchvision.models.resnet18()
        opt = torch.optim.SGD(student.parameters(), lr=0.1)
        for x, y in train_loader:
            with torch.no_grad():
                soft = F.softmax(teacher(x) / 4.0, dim=-1)
            loss = F.kl_div(F.log_softmax(student(x) / 4.0, dim=-1), soft, reduction="batchmean")
            opt.zero_grad()
            loss.backward()
            opt.step()
        """,
        # a helper of the script freezes it (its body is not run in order with the script, but it is called)
        """
        import torchvision

        def freeze(net):
            net.eval()
            for p in net.parameters():
                p.requires_grad_(False)

        u9 = torchvision.models.resnet50()
        u9.load_state_dict(torch.load(path_a))
        freeze(u9)
        for a, b in d1:
            with torch.no_grad():
                t = u9(a).softmax(-1)
            l = F.kl_div(net(a).log_softmax(-1), t, reduction="batchmean")
            o.zero_grad()
            l.backward()
            o.step()
        """,
        # the phase loop switches the mode with the phase
        """
        model = build_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        for ep in range(n_ep):
            for phase in ["train", "val"]:
                if phase == "train":
                    model.train()
                else:
                    model.eval()
                for x, y in loaders[phase]:
                    optimizer.zero_grad()
                    with torch.set_grad_enabled(phase == "train"):
                        loss = criterion(model(x), y)
                        if phase == "train":
                            loss.backward()
                            optimizer.step()
        for epoch in range(25):
            for phase in ["train", "val"]:
                model.train(phase == "train")
                for x, y in loaders[phase]:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
        """,
        # a detector wrapping the trained (and switched) model, run in a later loop that trains nothing
        """
        model = build_segmenter()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
        for epoch in range(num_epochs):
            for x, y in loader:
                loss = F.cross_entropy(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        model.eval()
        detector = EnergyBased(model)
        scores = []
        with torch.no_grad():
            for x, y in test_loader:
                scores.append(detector(x))
        """,
    ],
    "MLD021": [
        # the script's helper restores training mode
        """
        def check_split(m, d):
            m.eval()
            with torch.no_grad():
                r = sum(F.cross_entropy(m(u), v).item() for u, v in d)
            m.train()
            return r

        net.train()
        for j, (u, v) in enumerate(d1):
            o.zero_grad()
            F.cross_entropy(net(u), v).backward()
            o.step()
            if j % every == 0:
                print(j, check_split(net, d2))
        """,
    ],
    "MLD022": [
        # the evaluation pass runs under no_grad
        """
        def run_epoch(model, batches, loss_compute):
            total = 0.0
            for x, y in batches:
                total += float(loss_compute(model(x), y))
            return total

        for epoch in range(epochs):
            model.train()
            run_epoch(model, train_batches, compute_train)
            model.eval()
            with torch.no_grad():
                valid_loss = run_epoch(model, valid_batches, compute_valid)
            print(epoch, valid_loss)
        """,
    ],
    "MLD030": [
        # detached in the discriminator's update only (its loss scores the fakes against "fake" labels)
        """
        bce = torch.nn.BCELoss()
        for z, real in batches:
            sample = generator(z)
            d_loss = bce(critic(real), torch.ones(len(real))) + bce(critic(sample.detach()), torch.zeros(len(real)))
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            adversarial = bce(critic(sample), torch.ones(z.shape[0]))
            opt.zero_grad()
            adversarial.backward()
            opt.step()
        """,
    ],
    "MLD031": [
        """
        for x in loader:
            opt.zero_grad()
            critic(x).mean().backward()
            opt.step()
            with torch.no_grad():
                for p in critic.parameters():
                    p.clamp_(-0.01, 0.01)
        """,
    ],
    "MLD035": [
        # the same cells, the discriminator's step scores the detached sample
        """
        def generator_only_step(g, d, opt, z):
            g.requires_grad_(True)
            d.requires_grad_(False)
            netG.requires_grad_(False)
            opt.step()

        for real in loader:
            opt_g.zero_grad()
            opt_d.zero_grad()
            fake = netG(noise())
            errD = bce(netD(real), torch.ones(len(real))) + bce(netD(fake.detach()), torch.zeros(len(real)))
            errD.backward()
            errG = bce(netD(fake), torch.ones(len(real)))
            errG.backward()
            opt_d.step()
            opt_g.step()
        """,
        # the script itself freezes the generator before the discriminator's backward
        """
        for real in loader:
            opt_g.zero_grad()
            opt_d.zero_grad()
            fake = netG(noise())
            netG.requires_grad_(False)
            errD = bce(netD(real), torch.ones(len(real))) + bce(netD(fake), torch.zeros(len(real)))
            errD.backward(retain_graph=True)
            netG.requires_grad_(True)
            opt_d.step()
            opt_g.zero_grad()
            errG = bce(netD(fake), torch.ones(len(real)))
            errG.backward()
            opt_g.step()
        """,
    ],
    "MLD032": [
        # the running totals hold numbers
        """
        from collections import defaultdict

        model = Net()
        opt = torch.optim.Adam(model.parameters(), 1e-3)
        for epoch in range(10):
            totals = defaultdict(float)
            for x, y in loader:
                out = model(x)
                losses = {"ce": F.cross_entropy(out, y), "aux": out.pow(2).mean()}
                total = sum(losses.values())
                opt.zero_grad()
                total.backward()
                opt.step()
                for k, v in losses.items():
                    totals[k] += v.item()
            print(epoch, dict(totals))

        kept = []
        for bt in dl:
            r = m(**bt).loss
            eng.backward(r)
            o.step()
            kept.append(r.detach())
        """,
        # the terms are summed for this step's backward: the sum lives one iteration
        """
        for x, y in loader:
            out = model(x)
            losses = {"ce": F.cross_entropy(out, y), "aux": out.pow(2).mean()}
            total = 0
            for k, v in losses.items():
                total += v
            opt.zero_grad()
            total.backward()
            opt.step()
        """,
    ],
}


test_script_level_step_fires, test_script_level_correct_step_is_quiet = marked_snippet_tests(FIRES, QUIET, HEADER)
