"""memshelf-bot's GitHub side: Action runtime, event flows, feedback, GitHub client, sandbox."""
