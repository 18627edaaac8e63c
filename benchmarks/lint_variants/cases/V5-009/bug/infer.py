import argparse

import torch
from PIL import Image

from crnn import CRNN
from utils import resize_normalize, strLabelConverter

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def recognize(model, converter, image_path, device):
    image = Image.open(image_path).convert("L")
    image = resize_normalize(image).unsqueeze(0).to(device)
    with torch.no_grad():
        preds = model(image)
    _, preds = preds.max(2)
    preds = preds.transpose(1, 0).contiguous().view(-1)
    return converter.decode(preds.tolist(), preds.size(0))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--weights", default="expr/netCRNN.pth")
    parser.add_argument("images", nargs="+")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = CRNN(32, 1, len(ALPHABET) + 1, 256).to(device)
    model.load_state_dict(torch.load(args.weights, map_location=device))
    converter = strLabelConverter(ALPHABET)
    for path in args.images:
        print(f"{path}: {recognize(model, converter, path, device)}")


if __name__ == "__main__":
    main()
