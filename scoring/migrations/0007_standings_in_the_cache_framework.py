from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    """The table of Django's database cache (``CACHES``), wherever the app is migrated."""
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0006_roundscore_stake_holds_a_pot_bid"),
    ]

    operations = [
        migrations.DeleteModel(name="RenderedStandings"),
        migrations.RunPython(create_cache_table, migrations.RunPython.noop),
    ]
