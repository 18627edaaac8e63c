"""MLD035 (issue 17, blind split 7): a model's own forward computes the discriminator's loss from its live
reconstruction and returns it for another file's trainer (no backward in the file): flagged at the sample
the discriminator scores; a detached sample, one made under no_grad, and the generator's adversarial loss
stay quiet."""

import textwrap

import pytest

from .families import marked_lines, snippet_lines

HEADER = "import torch\nimport torch.nn.functional as F\n"

FIRES = {
    "forward_flag": """
        class Tokenizer(torch.nn.Module):
            def forward(self, video, return_discr_loss=False):
                recon_video = self.decode(self.encode(video))
                if return_discr_loss:
                    fake = recon_video[:, :, 0]
                    real = video[:, :, 0]
                    fake_logits = self.discr(fake)  # MLD035
                    real_logits = self.discr(real)
                    discr_loss = F.relu(1 + fake_logits).mean() + F.relu(1 - real_logits).mean()
                    return discr_loss
                return F.mse_loss(recon_video, video)
    """,
    "method_of_its_own": """
        class AutoEncoderGAN(torch.nn.Module):
            def critic_loss(self, images):
                reconstructed = self.dec(self.enc(images))
                critic_loss = self.critic(reconstructed).mean() - self.critic(images).mean()  # MLD035
                return critic_loss
    """,
    "module_function": """
        def disc_loss_of(disc, generated_img, real_img):
            d_loss = F.softplus(disc(generated_img)).mean() + F.softplus(-disc(real_img)).mean()  # MLD035
            return d_loss


        def run(gen, disc, z, real_img):
            generated_img = gen(z)
            return disc_loss_of(disc, generated_img, real_img)
    """,
}

QUIET = {
    "detached": """
        class Tokenizer(torch.nn.Module):
            def forward(self, video, return_discr_loss=False):
                recon_video = self.decode(self.encode(video))
                if return_discr_loss:
                    fake = recon_video.detach()
                    discr_loss = F.relu(1 + self.discr(fake)).mean() + F.relu(1 - self.discr(video)).mean()
                    return discr_loss
                return F.mse_loss(recon_video, video)
    """,
    "no_grad": """
        class AutoEncoderGAN(torch.nn.Module):
            def critic_loss(self, images):
                with torch.no_grad():
                    reconstructed = self.dec(self.enc(images))
                critic_loss = self.critic(reconstructed).mean() - self.critic(images).mean()
                return critic_loss
    """,
    "generator_side": """
        class AutoEncoderGAN(torch.nn.Module):
            def forward(self, images):
                fake = self.dec(self.enc(images))
                gen_loss = -self.discr(fake).mean()
                return gen_loss
    """,
}


@pytest.mark.parametrize("name", sorted(FIRES))
def test_forward_discriminator_loss_on_live_fake_fires(name):
    source = HEADER + textwrap.dedent(FIRES[name])
    assert snippet_lines(source, "MLD035") == marked_lines(source, "MLD035")


@pytest.mark.parametrize("name", sorted(QUIET))
def test_forward_discriminator_loss_detached_is_quiet(name):
    assert snippet_lines(HEADER + textwrap.dedent(QUIET[name]), "MLD035") == []
