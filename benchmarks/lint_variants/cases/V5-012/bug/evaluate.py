import argparse

import torch
from torch.utils.data import DataLoader

from dataset import UtteranceDataset, read_trials
from ecapa import SpeakerNet
from utils import compute_eer, extract_embeddings, score_trials


def main():
    parser = argparse.ArgumentParser(description="VoxCeleb1-O evaluation")
    parser.add_argument("--test_list", default="lists/veri_test2.txt")
    parser.add_argument("--test_path", default="data/voxceleb1")
    parser.add_argument("--initial_model", required=True)
    parser.add_argument("--eval_frames", type=int, default=400)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = SpeakerNet().to(device)
    state = torch.load(args.initial_model, map_location=device)
    model.load_state_dict({k.replace("module.", ""): v for k, v in state.items()})
    trials = read_trials(args.test_list)
    files = sorted({t[1] for t in trials} | {t[2] for t in trials})
    loader = DataLoader(UtteranceDataset(args.test_path, files, args.eval_frames), batch_size=32, num_workers=4)
    embeddings = extract_embeddings(model, loader, device)
    scores, labels = score_trials(embeddings, trials)
    print(f"EER {compute_eer(scores, labels):.2f}%")


if __name__ == "__main__":
    main()
