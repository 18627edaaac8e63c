import argparse

import torch
from torch.nn import CTCLoss
from torch.utils.data import DataLoader

import dataset
from crnn import CRNN
from utils import averager, strLabelConverter

parser = argparse.ArgumentParser()
parser.add_argument("--trainroot", required=True)
parser.add_argument("--valroot", required=True)
parser.add_argument("--alphabet", default="0123456789abcdefghijklmnopqrstuvwxyz")
parser.add_argument("--imgH", type=int, default=32)
parser.add_argument("--batchSize", type=int, default=64)
parser.add_argument("--nepoch", type=int, default=30)
parser.add_argument("--lr", type=float, default=1e-3)
opt = parser.parse_args()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
converter = strLabelConverter(opt.alphabet)
train_loader = DataLoader(dataset.lmdbDataset(opt.trainroot), batch_size=opt.batchSize, shuffle=True,
                          num_workers=4, collate_fn=dataset.alignCollate(imgH=opt.imgH, imgW=100))
val_loader = DataLoader(dataset.lmdbDataset(opt.valroot), batch_size=opt.batchSize,
                        collate_fn=dataset.alignCollate(imgH=opt.imgH, imgW=100))
crnn = CRNN(opt.imgH, 1, len(opt.alphabet) + 1).to(device)
criterion = CTCLoss(zero_infinity=True)
optimizer = torch.optim.Adam(crnn.parameters(), lr=opt.lr)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=opt.lr, epochs=opt.nepoch,
                                                steps_per_epoch=len(train_loader))
loss_avg = averager()


def val(net):
    net.eval()
    n_correct, n_total = 0, 0
    with torch.no_grad():
        for images, texts in val_loader:
            preds = net(images.to(device))
            sim_preds = converter.decode(preds.argmax(2).cpu())
            n_correct += sum(p == t.lower() for p, t in zip(sim_preds, texts))
            n_total += len(texts)
    print("Test accuracy: %f" % (n_correct / max(n_total, 1)))


for epoch in range(opt.nepoch):
    crnn.train()
    for i, (images, texts) in enumerate(train_loader):
        images = images.to(device)
        text, length = converter.encode(texts)
        preds = crnn(images)
        preds_size = torch.IntTensor([preds.size(0)] * images.size(0))
        cost = criterion(preds, text, preds_size, length)
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
        scheduler.step()
        loss_avg.add(cost.item())
        if i % 100 == 0:
            print("[%d/%d][%d/%d] Loss: %f" % (epoch, opt.nepoch, i, len(train_loader), loss_avg.val()))
            loss_avg.reset()
    val(crnn)
    torch.save(crnn.state_dict(), "expr/netCRNN_%d.pth" % epoch)
