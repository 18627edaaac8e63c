import argparse

import torch

from exp.exp_informer import Exp_Informer

parser = argparse.ArgumentParser(description="[Informer] Long Sequences Forecasting")
parser.add_argument("--model", type=str, default="informer")
parser.add_argument("--data", type=str, default="ETTh1")
parser.add_argument("--root_path", type=str, default="./data/ETT/")
parser.add_argument("--data_path", type=str, default="ETTh1.csv")
parser.add_argument("--features", type=str, default="M", help="M, S or MS")
parser.add_argument("--target", type=str, default="OT")
parser.add_argument("--checkpoints", type=str, default="./checkpoints/")
parser.add_argument("--seq_len", type=int, default=96)
parser.add_argument("--label_len", type=int, default=48)
parser.add_argument("--pred_len", type=int, default=24)
parser.add_argument("--enc_in", type=int, default=7)
parser.add_argument("--dec_in", type=int, default=7)
parser.add_argument("--c_out", type=int, default=7)
parser.add_argument("--d_model", type=int, default=512)
parser.add_argument("--n_heads", type=int, default=8)
parser.add_argument("--e_layers", type=int, default=2)
parser.add_argument("--d_layers", type=int, default=1)
parser.add_argument("--d_ff", type=int, default=2048)
parser.add_argument("--dropout", type=float, default=0.05)
parser.add_argument("--distil", action="store_false", default=True)
parser.add_argument("--num_workers", type=int, default=0)
parser.add_argument("--itr", type=int, default=2)
parser.add_argument("--train_epochs", type=int, default=6)
parser.add_argument("--batch_size", type=int, default=32)
parser.add_argument("--patience", type=int, default=3)
parser.add_argument("--val_interval", type=int, default=500, help="validate every N iterations (0: never)")
parser.add_argument("--learning_rate", type=float, default=1e-4)
parser.add_argument("--lradj", type=str, default="type1")
parser.add_argument("--use_gpu", type=bool, default=True)
parser.add_argument("--gpu", type=int, default=0)
parser.add_argument("--des", type=str, default="exp")
args = parser.parse_args()

args.use_gpu = bool(torch.cuda.is_available() and args.use_gpu)
data_parser = {
    "ETTh1": {"data": "ETTh1.csv", "T": "OT", "M": [7, 7, 7], "S": [1, 1, 1], "MS": [7, 7, 1]},
    "ETTh2": {"data": "ETTh2.csv", "T": "OT", "M": [7, 7, 7], "S": [1, 1, 1], "MS": [7, 7, 1]},
    "WTH": {"data": "WTH.csv", "T": "WetBulbCelsius", "M": [12, 12, 12], "S": [1, 1, 1], "MS": [12, 12, 1]},
}
if args.data in data_parser:
    info = data_parser[args.data]
    args.data_path = info["data"]
    args.target = info["T"]
    args.enc_in, args.dec_in, args.c_out = info[args.features]

print("Args in experiment:")
print(args)

for ii in range(args.itr):
    setting = "{}_{}_ft{}_sl{}_ll{}_pl{}_dm{}_nh{}_el{}_dl{}_df{}_{}_{}".format(
        args.model, args.data, args.features, args.seq_len, args.label_len, args.pred_len, args.d_model,
        args.n_heads, args.e_layers, args.d_layers, args.d_ff, args.des, ii)
    exp = Exp_Informer(args)
    print(">>>>>>>start training : {}>>>>>>>>>>>>>>>>>>>>>>>>>>".format(setting))
    exp.train(setting)
    print(">>>>>>>testing : {}<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<".format(setting))
    exp.test(setting)
    torch.cuda.empty_cache()
