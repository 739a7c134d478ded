// channels (docs/ARCHITECTURE.md, "A module"): its public face: message channels and file channels,
// one shape (schemas), one visibility query, one member filter; the messages and files modules serve them.
export {
  FileChannel,
  FileChannelCreate,
  FileChannelListQuery,
  MAX_GROUP_MEMBERS,
  MessageChannel,
  MessageChannelCreate,
  MessageChannelListQuery,
} from './channels.schemas.js';
export { channelPage, createChannel, deleteChannel, findVisibleChannel, getChannel, listChannels } from './channels.service.js';
export { activityKey, findChannelRow, visibleChannelIds } from './channels.repository.js';
