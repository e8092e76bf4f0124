import journal from './meta/_journal.json';
import m0000 from './0000_init.sql';
import m0001 from './0001_cursor_steps_and_blobs.sql';
import m0002 from './0002_live_branch_keys.sql';
import m0003 from './0003_summary_count.sql';
import m0004 from './0004_message_mode.sql';
import m0005 from './0005_drop_request_bytes.sql';
import m0006 from './0006_tool_card.sql';
import m0007 from './0007_context_blobs.sql';
import m0008 from './0008_message_images.sql';
import m0009 from './0009_request_contexts.sql';
import m0010 from './0010_code_mode.sql';
import m0011 from './0011_run_team.sql';
import m0012 from './0012_value_parts.sql';
import m0013 from './0013_usage_estimated.sql';
import m0014 from './0014_checkpoint_roots.sql';
import m0015 from './0015_image_descriptions.sql';
import m0016 from './0016_call_credential.sql';

  export default {
    journal,
    migrations: {
      m0000,
m0001,
m0002,
m0003,
m0004,
m0005,
m0006,
m0007,
m0008,
m0009,
m0010,
m0011,
m0012,
m0013,
m0014,
m0015,
m0016
    }
  }
  