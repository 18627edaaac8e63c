import argparse


def model_opts(parser):
    group = parser.add_argument_group("Model")
    group.add_argument("-rnn_size", type=int, default=512)
    group.add_argument("-num_layers", type=int, default=3)
    group.add_argument("-dropout", type=float, default=0.3)
    group.add_argument("-emb_size", type=int, default=256)


def sample_opts(parser):
    group = parser.add_argument_group("Sampling")
    group.add_argument("-checkpoint", required=True)
    group.add_argument("-primetext", default="The ")
    group.add_argument("-length", type=int, default=2000)
    group.add_argument("-temperature", type=float, default=0.8)
    group.add_argument("-seed", type=int, default=123)
    group.add_argument("-gpuid", type=int, default=0)


def parse_sample_opts():
    parser = argparse.ArgumentParser(description="sample.py")
    model_opts(parser)
    sample_opts(parser)
    return parser.parse_args()
