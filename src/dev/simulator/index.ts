export { GitHubSimulator } from "./simulator.js";
export { ApiError } from "./errors.js";
export type {
  AccountType,
  ApiCall,
  Delivery,
  Permission,
  ReactionContent,
  SimComment,
  SimIssue,
  SimReaction,
  SimRepo,
  SimulatorOptions,
  SimUser,
  SimUserRef,
} from "./types.js";
