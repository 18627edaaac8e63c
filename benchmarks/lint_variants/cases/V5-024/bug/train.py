import argparse
import os

import soundfile as sf
import torch

from audio_data import infinite_wav_loader
from utils import gradient_penalty, sample_noise
from wavegan import WaveGANDiscriminator, WaveGANGenerator


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--audio_dir", required=True)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--latent_dim", type=int, default=100)
    parser.add_argument("--n_critic", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=100000)
    parser.add_argument("--out_dir", default="runs/wavegan")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    netG = WaveGANGenerator(args.latent_dim).to(device)
    netD = WaveGANDiscriminator().to(device)
    optG = torch.optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))
    optD = torch.optim.Adam(netD.parameters(), lr=1e-4, betas=(0.5, 0.9))
    data = infinite_wav_loader(args.audio_dir, args.batch_size, num_samples=16384)
    os.makedirs(args.out_dir, exist_ok=True)
    for it in range(1, args.iterations + 1):
        for _ in range(args.n_critic):
            real = next(data).to(device)
            noise = sample_noise(real.size(0), args.latent_dim, device)
            optD.zero_grad()
            fake = netG(noise)
            d_fake = netD(fake).mean()
            d_real = netD(real).mean()
            gp = gradient_penalty(netD, real, fake, device)
            d_loss = d_fake - d_real + gp
            d_loss.backward()
            optD.step()
        optG.zero_grad()
        noise = sample_noise(args.batch_size, args.latent_dim, device)
        g_loss = -netD(netG(noise)).mean()
        g_loss.backward()
        optG.step()
        if it % 100 == 0:
            print(f"iter {it}: D {d_loss.item():.4f} G {g_loss.item():.4f} W {(d_real - d_fake).item():.4f}")
        if it % 5000 == 0:
            with torch.no_grad():
                audio = netG(sample_noise(1, args.latent_dim, device)).squeeze().cpu().numpy()
            sf.write(os.path.join(args.out_dir, f"sample_{it}.wav"), audio, 16000)
            torch.save({"G": netG.state_dict(), "D": netD.state_dict()}, os.path.join(args.out_dir, "ckpt.pt"))


if __name__ == "__main__":
    main()
