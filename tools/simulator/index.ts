export { GitHubSimulator } from "./simulator.js";
export { ApiError } from "./errors.js";
export { isContentCreating, SECONDARY_LIMIT_MESSAGE, type ContentLimits, type ContentWrite, type RateBudget, type RateResource } from "./ratelimit.js";
export type {
  AccountType,
  ApiCall,
  Delivery,
  LostDelivery,
  Permission,
  ReactionContent,
  ReceivedRequest,
  SimComment,
  SimIssue,
  SimReaction,
  SimRepo,
  SimulatorOptions,
  SimUser,
  SimUserRef,
} from "./types.js";
