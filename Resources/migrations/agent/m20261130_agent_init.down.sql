DROP TABLE agent_info;
