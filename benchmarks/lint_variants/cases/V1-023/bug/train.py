import pytorch_lightning as pl
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint

from datamodule import CreditDataModule
from model import TabularNet

CAT_COLS = ["NAME_CONTRACT_TYPE", "CODE_GENDER", "NAME_INCOME_TYPE", "NAME_EDUCATION_TYPE",
            "NAME_FAMILY_STATUS", "OCCUPATION_TYPE", "ORGANIZATION_TYPE"]
CONT_COLS = ["AMT_INCOME_TOTAL", "AMT_CREDIT", "AMT_ANNUITY", "DAYS_BIRTH", "DAYS_EMPLOYED",
             "EXT_SOURCE_1", "EXT_SOURCE_2", "EXT_SOURCE_3"]

if __name__ == "__main__":
    pl.seed_everything(2024)
    dm = CreditDataModule("data/application_train.csv", CAT_COLS, CONT_COLS)
    dm.setup()
    model = TabularNet(dm.cardinalities, n_cont=len(CONT_COLS))
    trainer = pl.Trainer(
        max_epochs=30,
        callbacks=[EarlyStopping(monitor="val_auc", mode="max", patience=5),
                   ModelCheckpoint(monitor="val_auc", mode="max")],
        gradient_clip_val=1.0,
    )
    trainer.fit(model, datamodule=dm)
