"""The Monitor as a PyTorch Lightning callback and as a Hugging Face Trainer callback (tiny models, no downloads)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from gengap.store import Store  # noqa: E402

torch.set_num_threads(1)


def blobs(n=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 6, generator=g)
    return x, (x[:, 0] + x[:, 1] > 0).long()


@pytest.mark.slow
def test_lightning_callback_stores_measures_and_validation_figures(tmp_path):
    pl = pytest.importorskip("lightning.pytorch")
    from gengap.monitor import LightningMonitor

    x, y = blobs()
    xv, yv = blobs(seed=1)

    class Tiny(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))

        def forward(self, inputs):
            return self.net(inputs)

        def training_step(self, batch, batch_idx):
            return torch.nn.functional.cross_entropy(self(batch[0]), batch[1])

        def validation_step(self, batch, batch_idx):
            logits = self(batch[0])
            self.log("val_loss", torch.nn.functional.cross_entropy(logits, batch[1]))
            self.log("val_acc", (logits.argmax(-1) == batch[1]).float().mean())

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), lr=0.05)

    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
    val = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xv, yv), batch_size=64)
    pl.seed_everything(0, verbose=False)
    callback = LightningMonitor(store=tmp_path / "g.duckdb", run_name="lightning", every=4, console=None,
                                train_eval=(x, y))
    trainer = pl.Trainer(max_epochs=3, callbacks=[callback], logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False, accelerator="cpu")
    trainer.fit(Tiny(), loader, val)
    mon = callback.monitor
    with Store(tmp_path / "g.duckdb", read_only=True) as store:
        m = store.measures(mon.run_id)
        assert store.runs().set_index("run_id").loc[mon.run_id, "status"] == "done"
    names = set(m["name"])
    assert {"batch_loss", "train_accuracy", "heldout_accuracy", "heldout_loss", "distance_from_init", "margin"} <= names
    assert len(m[m["name"] == "batch_loss"]) == 12          # 3 epochs x 4 batches
    assert sorted(m[m["name"] == "heldout_accuracy"]["step"]) == [4, 8, 12]
    assert mon.decision()[0] != "undecided"


@pytest.mark.slow
def test_hf_trainer_callback_records_logged_loss_and_eval_figures(tmp_path):
    pytest.importorskip("transformers")
    pytest.importorskip("accelerate")
    from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

    from gengap.monitor import HFMonitorCallback

    torch.manual_seed(0)
    config = BertConfig(vocab_size=20, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=16, num_labels=2)
    model = BertForSequenceClassification(config)
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(1, 20, (48, 6), generator=g)
    labels = (ids[:, 0] > 10).long()
    rows = [{"input_ids": ids[i], "attention_mask": torch.ones(6, dtype=torch.long), "labels": labels[i]}
            for i in range(48)]

    def accuracy(pred):
        return {"accuracy": float((pred.predictions.argmax(-1) == pred.label_ids).mean())}

    probe = {"input_ids": ids[:16], "attention_mask": torch.ones(16, 6, dtype=torch.long), "labels": labels[:16]}
    callback = HFMonitorCallback(store=tmp_path / "g.duckdb", run_name="hf", every=3, console=None,
                                 probe=probe, train_eval=probe, measures=["distance", "rotation", "margin"])
    args = TrainingArguments(output_dir=str(tmp_path / "hf"), per_device_train_batch_size=8, num_train_epochs=1,
                             learning_rate=1e-3, logging_steps=2, eval_strategy="steps", eval_steps=3,
                             report_to=[], save_strategy="no", use_cpu=True, seed=0, disable_tqdm=True)
    trainer = Trainer(model=model, args=args, train_dataset=rows, eval_dataset=rows[:16], compute_metrics=accuracy,
                      callbacks=[callback])
    trainer.train()
    mon = callback.monitor
    with Store(tmp_path / "g.duckdb", read_only=True) as store:
        m = store.measures(mon.run_id)
    names = set(m["name"])
    assert {"batch_loss", "heldout_loss", "heldout_accuracy", "train_accuracy", "distance_from_init",
            "layer_rotation", "margin"} <= names
    assert sorted(set(m[m["name"] == "heldout_loss"]["step"])) == [3, 6]
    assert sorted(m[m["name"] == "batch_loss"]["step"]) == [2, 4, 6]
    assert m[m["name"] == "distance_from_init"]["value"].iloc[-1] > 0
