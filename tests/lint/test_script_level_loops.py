"""Rules that follow a training step must also read a script whose loop runs at module level, not inside a
function (issue 17: the same BAD step, moved out of its `def`, was missed). Each firing script is a rule's shape
written as a script; each quiet one is its correct variant, also at module level."""

from .families import marked_snippet_tests

HEADER = "import torch\nimport torch.nn.functional as F\n"

FIRES = {
    "MLD035": """
        netG, netD = Generator(), Discriminator()
        opt_g = torch.optim.Adam(netG.parameters(), 2e-4)
        opt_d = torch.optim.Adam(netD.parameters(), 2e-4)
        for real in loader:
            opt_g.zero_grad()
            opt_d.zero_grad()
            fake = netG(torch.randn(len(real), 100))
            d_loss = bce(netD(real), torch.ones(len(real), 1)) + bce(netD(fake), torch.zeros(len(real), 1))  # MLD035
            d_loss.backward(retain_graph=True)
            opt_d.step()
            g_loss = bce(netD(fake), torch.ones(len(real), 1))
            g_loss.backward()
            opt_g.step()
    """,
}

QUIET = {
    "MLD035": [
        # the generator is cleared before its own backward: the undetached sample only costs a backward
        """
        netG, netD = Generator(), Discriminator()
        opt_g = torch.optim.Adam(netG.parameters(), 2e-4)
        opt_d = torch.optim.Adam(netD.parameters(), 2e-4)
        for real in loader:
            fake = netG(torch.randn(len(real), 100))
            opt_d.zero_grad()
            d_loss = bce(netD(real), torch.ones(len(real), 1)) + bce(netD(fake), torch.zeros(len(real), 1))
            d_loss.backward(retain_graph=True)
            opt_d.step()
            opt_g.zero_grad()
            g_loss = bce(netD(fake), torch.ones(len(real), 1))
            g_loss.backward()
            opt_g.step()
        """,
        # detached for the discriminator's step
        """
        netG, netD = Generator(), Discriminator()
        opt_g = torch.optim.Adam(netG.parameters(), 2e-4)
        opt_d = torch.optim.Adam(netD.parameters(), 2e-4)
        for real in loader:
            opt_g.zero_grad()
            opt_d.zero_grad()
            fake = netG(torch.randn(len(real), 100))
            d_loss = bce(netD(real), torch.ones(len(real), 1)) + bce(netD(fake.detach()), torch.zeros(len(real), 1))
            d_loss.backward()
            opt_d.step()
            g_loss = bce(netD(fake), torch.ones(len(real), 1))
            g_loss.backward()
            opt_g.step()
        """,
    ],
}


test_script_level_step_fires, test_script_level_correct_step_is_quiet = marked_snippet_tests(FIRES, QUIET, HEADER)
