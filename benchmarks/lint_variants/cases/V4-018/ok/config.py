import torch


class CFG:
    image_path = "flickr30k/images"
    captions_path = "flickr30k/captions.csv"
    batch_size = 64
    num_workers = 4
    image_encoder_lr = 1e-4
    text_encoder_lr = 1e-5
    head_lr = 1e-3
    weight_decay = 1e-3
    epochs = 8
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    image_model = "resnet50"
    text_model = "distilbert-base-uncased"
    image_embedding = 2048
    text_embedding = 768
    max_length = 200
    init_temperature = 0.07
    projection_dim = 256
    dropout = 0.1
    size = 224
