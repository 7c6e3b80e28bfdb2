from django.db import migrations, models


def forget_kept_sheets(apps, schema_editor):
    # A cache: the next poll of each table draws its sheet again and keeps it compressed.
    apps.get_model("scoring", "RenderedSheet").objects.all().delete()


class Migration(migrations.Migration):
    """The viewers' kept sheet is stored compressed once, to be sent as it is."""

    dependencies = [
        ("scoring", "0003_rendered_standings"),
    ]

    operations = [
        migrations.RunPython(forget_kept_sheets, migrations.RunPython.noop),
        migrations.RemoveField(model_name="renderedsheet", name="html"),
        migrations.AddField(
            model_name="renderedsheet",
            name="gzipped",
            field=models.BinaryField(default=b""),
            preserve_default=False,
        ),
    ]
