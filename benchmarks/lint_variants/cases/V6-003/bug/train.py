import argparse
import os

import torch
from torch.utils.data import DataLoader

from dataset import NoisyCleanDataset
from model import Denoiser, compute_losses, stft_mag
from utils import LossTracker, save_checkpoint


def train(a):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Denoiser(n_fft=a.n_fft).to(device)
    optim = torch.optim.AdamW(model.parameters(), a.learning_rate, betas=(0.8, 0.99))
    loader = DataLoader(NoisyCleanDataset(a.input_training_file, a.segment_size),
                        batch_size=a.batch_size, shuffle=True, num_workers=4, drop_last=True)
    tracker = LossTracker()
    steps = 0
    for epoch in range(a.training_epochs):
        model.train()
        tracker.reset()
        for noisy, clean in loader:
            noisy, clean = noisy.to(device), clean.to(device)
            est = model(stft_mag(noisy, a.n_fft))
            losses = compute_losses(est, stft_mag(clean, a.n_fft))
            total = losses["l1"] + losses["spectral_convergence"] + 0.5 * losses["log_mag"]
            optim.zero_grad()
            total.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
            optim.step()
            tracker.update(losses)
            steps += 1
            if steps % a.checkpoint_interval == 0:
                save_checkpoint(os.path.join(a.checkpoint_path, "d_{:08d}".format(steps)),
                                {"model": model.state_dict(), "steps": steps})
        print("Epoch {} | {}".format(epoch, tracker.averages()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--input_training_file", default="filelists/train.txt")
    parser.add_argument("--checkpoint_path", default="cp_denoiser")
    parser.add_argument("--training_epochs", default=200, type=int)
    parser.add_argument("--batch_size", default=16, type=int)
    parser.add_argument("--learning_rate", default=2e-4, type=float)
    parser.add_argument("--segment_size", default=16384, type=int)
    parser.add_argument("--n_fft", default=512, type=int)
    parser.add_argument("--checkpoint_interval", default=5000, type=int)
    train(parser.parse_args())


if __name__ == "__main__":
    main()
