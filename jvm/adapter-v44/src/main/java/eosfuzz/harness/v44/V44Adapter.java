package eosfuzz.harness.v44;

import eosfuzz.harness.Adapter;
import eosfuzz.harness.Service;
import eosfuzz.harness.leader.LeaderService;
import eosfuzz.harness.coordinator.TxnCoordinatorService;
import eosfuzz.harness.coordinator.TxnMetadataService;
import java.util.LinkedHashMap;
import java.util.Map;

/** The harness's services for the Kafka releases whose signatures are 4.4.0's (jvm/releases.json). */
public final class V44Adapter implements Adapter {
    @Override
    public String name() {
        return "v44";
    }

    @Override
    public Map<String, Service> services() {
        Map<String, Service> services = new LinkedHashMap<>();
        services.put("leader", new LeaderService(V44LeaderLog::create));
        services.put("txnMetadata", new TxnMetadataService(V44TxnMetadata::create));
        services.put("txnCoordinator", new TxnCoordinatorService(V44TxnCoordinator::create));
        services.put("transactionManager", new eosfuzz.harness.client.TransactionManagerService(V44TransactionalClient::create));
        services.put("clientMetadata", new eosfuzz.harness.client.ClientMetadataService());
        return services;
    }
}
