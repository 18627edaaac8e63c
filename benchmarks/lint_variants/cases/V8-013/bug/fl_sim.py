import argparse
import copy
import csv
import logging
import os

import numpy as np
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from client import Client
from models import get_model, state_size_mb
from server import dirichlet_partition, evaluate, fedavg, sample_clients

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("fedsim")


def main():
    p = argparse.ArgumentParser(description="FedAvg / FedProx simulation on CIFAR-10")
    p.add_argument("--rounds", type=int, default=200)
    p.add_argument("--num-clients", type=int, default=100)
    p.add_argument("--frac", type=float, default=0.1)
    p.add_argument("--alpha", type=float, default=0.5, help="Dirichlet concentration")
    p.add_argument("--local-epochs", type=int, default=5)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--mu", type=float, default=0.0, help="FedProx proximal term (0 = FedAvg)")
    p.add_argument("--eval-every", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log-dir", default="logs")
    args = p.parse_args()

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    norm = transforms.Normalize((0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261))
    train = datasets.CIFAR10("data", train=True, download=True, transform=transforms.Compose([transforms.ToTensor(), norm]))
    test = datasets.CIFAR10("data", train=False, download=True, transform=transforms.Compose([transforms.ToTensor(), norm]))
    parts = dirichlet_partition(train.targets, args.num_clients, args.alpha, args.seed)
    clients = [Client(i, train, idx, local_epochs=args.local_epochs, lr=args.lr, device=device)
               for i, idx in enumerate(parts)]
    test_loader = DataLoader(test, batch_size=500)

    model = get_model("cnn").to(device)
    global_state = copy.deepcopy(model.state_dict())
    log.info("model state %.2f MB, %d clients", state_size_mb(model), len(clients))
    os.makedirs(args.log_dir, exist_ok=True)
    with open(os.path.join(args.log_dir, f"fed_mu{args.mu}_a{args.alpha}.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["round", "train_loss", "test_acc", "test_loss"])
        for rnd in range(1, args.rounds + 1):
            selected = sample_clients(len(clients), args.frac, rng)
            states, weights, losses = [], [], []
            for cid in selected:
                state, n, client_loss = clients[cid].local_train(model, global_state, mu=args.mu)
                states.append(state)
                weights.append(n)
                losses.append(client_loss)
            global_state = fedavg(states, weights)
            if rnd % args.eval_every == 0:
                model.load_state_dict(global_state)
                acc, test_loss = evaluate(model, test_loader, device)
                log.info("round %d | train loss %.4f | test acc %.4f", rnd, float(np.mean(losses)), acc)
                writer.writerow([rnd, float(np.mean(losses)), acc, test_loss])
        torch.save(global_state, os.path.join(args.log_dir, "global_final.pt"))


if __name__ == "__main__":
    main()
