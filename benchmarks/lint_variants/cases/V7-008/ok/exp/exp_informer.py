import os
import time

import numpy as np
import torch
import torch.nn as nn
from torch import optim
from torch.utils.data import DataLoader

from data.data_loader import Dataset_Custom, Dataset_ETT_hour
from models.model import Informer
from utils.tools import EarlyStopping, adjust_learning_rate, metric


class Exp_Basic:
    def __init__(self, args):
        self.args = args
        self.device = self._acquire_device()
        self.model = self._build_model().to(self.device)

    def _build_model(self):
        raise NotImplementedError

    def _acquire_device(self):
        if self.args.use_gpu and torch.cuda.is_available():
            print("Use GPU: cuda:{}".format(self.args.gpu))
            return torch.device("cuda:{}".format(self.args.gpu))
        print("Use CPU")
        return torch.device("cpu")


class Exp_Informer(Exp_Basic):
    def _build_model(self):
        a = self.args
        return Informer(a.enc_in, a.dec_in, a.c_out, a.seq_len, a.label_len, a.pred_len, a.d_model, a.n_heads,
                        a.e_layers, a.d_layers, a.d_ff, a.dropout, a.distil).float()

    def _get_data(self, flag):
        a = self.args
        Data = Dataset_ETT_hour if a.data.startswith("ETTh") else Dataset_Custom
        shuffle_flag, drop_last = (False, True) if flag == "test" else (True, True)
        data_set = Data(root_path=a.root_path, data_path=a.data_path, flag=flag,
                        size=[a.seq_len, a.label_len, a.pred_len], features=a.features, target=a.target)
        print(flag, len(data_set))
        data_loader = DataLoader(data_set, batch_size=a.batch_size, shuffle=shuffle_flag,
                                 num_workers=a.num_workers, drop_last=drop_last)
        return data_set, data_loader

    def _process_one_batch(self, batch_x, batch_y, batch_x_mark, batch_y_mark):
        batch_x = batch_x.float().to(self.device)
        batch_y = batch_y.float()
        batch_x_mark = batch_x_mark.float().to(self.device)
        batch_y_mark = batch_y_mark.float().to(self.device)
        dec_inp = torch.zeros([batch_y.shape[0], self.args.pred_len, batch_y.shape[-1]]).float()
        dec_inp = torch.cat([batch_y[:, : self.args.label_len, :], dec_inp], dim=1).float().to(self.device)
        outputs = self.model(batch_x, batch_x_mark, dec_inp, batch_y_mark)
        f_dim = -1 if self.args.features == "MS" else 0
        batch_y = batch_y[:, -self.args.pred_len:, f_dim:].to(self.device)
        return outputs, batch_y

    def vali(self, vali_data, vali_loader, criterion):
        self.model.eval()
        total_loss = []
        with torch.no_grad():
            for batch_x, batch_y, batch_x_mark, batch_y_mark in vali_loader:
                pred, true = self._process_one_batch(batch_x, batch_y, batch_x_mark, batch_y_mark)
                total_loss.append(criterion(pred, true).item())
        total_loss = np.average(total_loss)
        self.model.train()
        return total_loss

    def train(self, setting):
        train_data, train_loader = self._get_data(flag="train")
        vali_data, vali_loader = self._get_data(flag="val")
        path = os.path.join(self.args.checkpoints, setting)
        os.makedirs(path, exist_ok=True)

        time_now = time.time()
        train_steps = len(train_loader)
        early_stopping = EarlyStopping(patience=self.args.patience, verbose=True)
        model_optim = optim.Adam(self.model.parameters(), lr=self.args.learning_rate)
        criterion = nn.MSELoss()

        for epoch in range(self.args.train_epochs):
            iter_count = 0
            train_loss = []
            self.model.train()
            epoch_time = time.time()
            for i, (batch_x, batch_y, batch_x_mark, batch_y_mark) in enumerate(train_loader):
                iter_count += 1
                model_optim.zero_grad()
                pred, true = self._process_one_batch(batch_x, batch_y, batch_x_mark, batch_y_mark)
                loss = criterion(pred, true)
                train_loss.append(loss.item())
                loss.backward()
                model_optim.step()

                if (i + 1) % 100 == 0:
                    speed = (time.time() - time_now) / iter_count
                    left_time = speed * ((self.args.train_epochs - epoch) * train_steps - i)
                    print("\titers: {0}, epoch: {1} | loss: {2:.7f}".format(i + 1, epoch + 1, loss.item()))
                    print("\tspeed: {:.4f}s/iter; left time: {:.4f}s".format(speed, left_time))
                    iter_count = 0
                    time_now = time.time()

                if self.args.val_interval and (i + 1) % self.args.val_interval == 0:
                    vali_loss = self.vali(vali_data, vali_loader, criterion)
                    print("\tstep {} vali loss: {:.7f}".format(i + 1, vali_loss))
                    early_stopping(vali_loss, self.model, path)
                    if early_stopping.early_stop:
                        break

            if early_stopping.early_stop:
                print("Early stopping")
                break
            print("Epoch: {} cost time: {:.1f}s train loss: {:.7f}".format(
                epoch + 1, time.time() - epoch_time, np.average(train_loss)))
            adjust_learning_rate(model_optim, epoch + 1, self.args)

        self.model.load_state_dict(torch.load(os.path.join(path, "checkpoint.pth")))
        return self.model

    def test(self, setting):
        test_data, test_loader = self._get_data(flag="test")
        self.model.eval()
        preds, trues = [], []
        with torch.no_grad():
            for batch_x, batch_y, batch_x_mark, batch_y_mark in test_loader:
                pred, true = self._process_one_batch(batch_x, batch_y, batch_x_mark, batch_y_mark)
                preds.append(pred.cpu().numpy())
                trues.append(true.cpu().numpy())
        preds, trues = np.concatenate(preds), np.concatenate(trues)
        mae, mse, rmse, mape = metric(preds, trues)
        print("mse:{}, mae:{}".format(mse, mae))
        folder = os.path.join("results", setting)
        os.makedirs(folder, exist_ok=True)
        np.save(os.path.join(folder, "metrics.npy"), np.array([mae, mse, rmse, mape]))
        return mse, mae
