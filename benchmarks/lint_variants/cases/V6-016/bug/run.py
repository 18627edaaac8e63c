import argparse
import random

import numpy as np
import torch

from exp_main import Exp_Main

fix_seed = 2021
random.seed(fix_seed)
torch.manual_seed(fix_seed)
np.random.seed(fix_seed)

parser = argparse.ArgumentParser(description="TCN for Time Series Forecasting")
parser.add_argument("--model", type=str, default="tcn")
parser.add_argument("--data", type=str, default="ETTh1")
parser.add_argument("--root_path", type=str, default="./dataset/ETT-small/")
parser.add_argument("--seq_len", type=int, default=96)
parser.add_argument("--pred_len", type=int, default=24)
parser.add_argument("--enc_in", type=int, default=7)
parser.add_argument("--dropout", type=float, default=0.1)
parser.add_argument("--batch_size", type=int, default=32)
parser.add_argument("--learning_rate", type=float, default=0.001)
parser.add_argument("--train_epochs", type=int, default=10)
parser.add_argument("--checkpoints", type=str, default="./checkpoints/")
args = parser.parse_args()

setting = f"{args.model}_{args.data}_sl{args.seq_len}_pl{args.pred_len}"
exp = Exp_Main(args)
print(f">>>>>>> start training : {setting} >>>>>>>>>>>>>>>>>>>>>>>>>>")
exp.train(setting)
